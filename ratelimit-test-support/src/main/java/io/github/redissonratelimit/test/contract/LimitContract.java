package io.github.redissonratelimit.test.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * What every way of declaring a limit promises over HTTP, whether annotated methods, {@code ratelimit.routes} or
 * gateway routes: each limit counts apart, a reset reaches every caller, a keyed limit read without a key shows its
 * declaration only, a key with a null part is a missing key (400), headers tell the state after a refund, and a
 * refusal lists every limit of the request. One subclass per way, each serving at {@link #base()}, on a fresh Redis,
 * these limits (every request comes from 127.0.0.1; {@code client} below is the client's address):
 * <ul>
 * <li>{@code wide}: {@code GET /contract/wide}, 5 per minute per client;</li>
 * <li>{@code narrow}: {@code GET /contract/narrow}, 2 per minute per client, keyed by the same expression as
 * {@code wide} where the way keys by expression;</li>
 * <li>{@code keyed}: {@code GET /contract/keyed?user=..}, 2 per minute, keyed by the {@code user} parameter, then
 * {@code ':'}, then the client;</li>
 * <li>{@code charged}: {@code GET /contract/charged?status=..} answering that status, 3 per minute per client,
 * charged only when the status is 400 or more;</li>
 * <li>{@code first} (1 per minute) and {@code second} (5 per minute), both on {@code GET /contract/two}, per client.
 * </li>
 * </ul>
 * The actuator's {@code ratelimits} endpoint is at {@code /actuator/ratelimits}. Headers are the IETF fields.
 */
public abstract class LimitContract {

    private static final Pattern AVAILABLE = Pattern.compile("\"availablePermits\"\\s*:\\s*\\d");

    /** HTTP/1.1 (the default client offers an h2c upgrade Netty need not take); no request waits for ever. */
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    /** Where the application under test answers, e.g. {@code http://127.0.0.1:8080}. */
    protected abstract URI base();

    /** Whether the way has a charge-by-outcome condition ({@code chargeWhen}, {@code charge-when}). */
    protected boolean chargesByOutcome() {
        return true;
    }

    /**
     * Whether a request without a key gets a problem body; the gateway answers it as Spring Cloud Gateway's filter
     * does ({@code deny-empty-key}, {@code empty-key-status}: a status only).
     */
    protected boolean answersMissingKeyWithProblem() {
        return true;
    }

    /** Whether one request can meet several limits of this way, decided together ({@code first} and {@code second}). */
    protected boolean decidesSeveralLimits() {
        return true;
    }

    @Test
    void limitsKeyedAlikeCountApart() throws Exception {
        assertThat(get("/contract/narrow").statusCode()).isEqualTo(200);
        assertThat(get("/contract/narrow").statusCode()).isEqualTo(200);
        assertThat(get("/contract/narrow").statusCode()).isEqualTo(429);

        HttpResponse<String> wide = get("/contract/wide");
        assertThat(wide.statusCode()).as("wide's own limiter, untouched by narrow's calls").isEqualTo(200);
        assertThat(remaining(wide, "wide")).isEqualTo(4);
    }

    @Test
    void aResetOfALimitResetsEveryCallerOfIt() throws Exception {
        for (String user : new String[] {"ann", "bob"}) {
            get("/contract/keyed?user=" + user);
            get("/contract/keyed?user=" + user);
            assertThat(get("/contract/keyed?user=" + user).statusCode()).as(user + " spent").isEqualTo(429);
        }

        HttpResponse<String> reset = send("DELETE", "/actuator/ratelimits/keyed");

        assertThat(reset.statusCode()).as(reset.body()).isEqualTo(200);
        assertThat(get("/contract/keyed?user=ann").statusCode()).isEqualTo(200);
        assertThat(get("/contract/keyed?user=bob").statusCode()).isEqualTo(200);
        assertThat(get("/contract/narrow").statusCode()).as("another limit keeps its count").isEqualTo(200);
    }

    @Test
    void aKeyedLimitReadWithoutAKeyShowsItsDeclarationOnly() throws Exception {
        get("/contract/keyed?user=ann");

        HttpResponse<String> read = send("GET", "/actuator/ratelimits/keyed");

        assertThat(read.statusCode()).isEqualTo(200);
        assertThat(read.body()).contains("\"keyed\"");
        assertThat(AVAILABLE.matcher(read.body()).find()).as("no limiter state in " + read.body()).isFalse();
    }

    @Test
    void aKeyWithANullPartIsAMissingKey() throws Exception {
        for (int i = 0; i < 4; i++) {
            HttpResponse<String> missing = get("/contract/keyed");
            assertThat(missing.statusCode()).as("no user: no shared 'null:...' bucket").isEqualTo(400);
            if (answersMissingKeyWithProblem()) {
                assertThat(missing.headers().firstValue("Content-Type")).hasValueSatisfying(
                        type -> assertThat(type).startsWith("application/problem+json"));
            }
        }
        assertThat(get("/contract/keyed?user=ann").statusCode()).isEqualTo(200);
        assertThat(get("/contract/keyed?user=nullable").statusCode()).as("the text null in a value").isEqualTo(200);
    }

    @Test
    void aSuccessNotChargedShowsTheCountAfterItsRefund() throws Exception {
        assumeTrue(chargesByOutcome(), "no charge-by-outcome condition");
        for (int i = 0; i < 4; i++) {
            HttpResponse<String> success = get("/contract/charged?status=200");
            assertThat(success.statusCode()).isEqualTo(200);
            assertThat(remaining(success, "charged")).as("given back before the answer").isEqualTo(3);
        }
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> failure = get("/contract/charged?status=500");
            assertThat(failure.statusCode()).isEqualTo(500);
            assertThat(remaining(failure, "charged")).isEqualTo(2 - i);
        }
        assertThat(get("/contract/charged?status=200").statusCode()).isEqualTo(429);
    }

    @Test
    void aRefusalListsEveryLimitOfTheRequest() throws Exception {
        assumeTrue(decidesSeveralLimits(), "one limit per request");
        HttpResponse<String> passed = get("/contract/two");
        assertThat(passed.statusCode()).isEqualTo(200);
        assertThat(remaining(passed, "first")).isEqualTo(0);
        assertThat(remaining(passed, "second")).isEqualTo(4);

        HttpResponse<String> refused = get("/contract/two");

        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("RateLimit-Policy")).hasValueSatisfying(
                policy -> assertThat(policy).contains("\"first\";").contains("\"second\";"));
        assertThat(remaining(refused, "first")).isEqualTo(0);
        // refused from memory (the first limit's last grant left it empty), the second limit was not asked: its
        // state is reported only when known, and then as it stands, nothing taken by the refused call
        if (refused.headers().firstValue("RateLimit").orElse("").contains("\"second\";")) {
            assertThat(remaining(refused, "second")).as("nothing taken by the refused call").isEqualTo(4);
        }
        HttpResponse<String> later = get("/contract/two");
        assertThat(later.headers().firstValue("RateLimit-Policy")).hasValueSatisfying(
                policy -> assertThat(policy).contains("\"first\";").contains("\"second\";"));
    }

    /** The {@code r} of the {@code limit}'s item in the response's {@code RateLimit} field. */
    protected static long remaining(HttpResponse<?> response, String limit) {
        String field = response.headers().firstValue("RateLimit").orElse("");
        Matcher item = Pattern.compile("\"" + Pattern.quote(limit) + "\";r=(\\d+)").matcher(field);
        assertThat(item.find()).as("an item for %s in RateLimit: %s", limit, field).isTrue();
        return Long.parseLong(item.group(1));
    }

    protected HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return send("GET", path);
    }

    protected HttpResponse<String> send(String method, String path) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(base().resolve(path)).timeout(Duration.ofSeconds(30))
                .method(method, HttpRequest.BodyPublishers.noBody()).build();
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        }
        catch (HttpTimeoutException ex) {
            // the application runs in this JVM: where its threads stood tells why it did not answer
            StringBuilder dump = new StringBuilder(method + " " + path + " timed out; threads:\n");
            Thread.getAllStackTraces().forEach((thread, stack) -> {
                dump.append('"').append(thread.getName()).append("\" ").append(thread.getState()).append('\n');
                for (StackTraceElement frame : stack) {
                    dump.append("    at ").append(frame).append('\n');
                }
            });
            System.err.println(dump);
            throw ex;
        }
    }
}
