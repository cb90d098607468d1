package io.github.redissonratelimit.autoconfigure.routes;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.github.redissonratelimit.test.redis.InFlightPermits;
import io.github.redissonratelimit.test.redis.TestRedis;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A route limited in flight ({@code algorithm: in-flight}, one request at once per {@code k}) holds its permit while
 * the request runs and gives it back when the request ends, over real HTTP on a real Redis: on Spring MVC when the
 * handler returned, threw, or answered asynchronously; on WebFlux when the response completed, or the client went
 * away. Each handler, or the test while the request is pending, reads the permits held in Redis; a permit back
 * within {@link InFlightPermits#GIVEN_BACK_WITHIN} was given back, not left to expire (30 s lease, renewed).
 */
class InFlightRouteHttpTest {

    private static final InFlightPermits permits = new InFlightPermits(TestRedis.endpoint());
    private static final AtomicLong heldWhenFailing = new AtomicLong(-1);
    private static volatile CompletableFuture<String> asyncAnswer;

    private static ConfigurableApplicationContext servlet;
    private static ConfigurableApplicationContext reactive;
    private static final HttpApps apps = new HttpApps(TestRedis.endpoint());

    @RestController
    public static class Api {

        @GetMapping("/flight/done")
        public long done(@RequestParam String k) {
            return permits.held("flight:" + k);
        }

        @GetMapping("/flight/done-reactive")
        public Mono<Long> doneReactive(@RequestParam String k) {
            return Mono.fromCallable(() -> permits.held("flight:" + k)).subscribeOn(Schedulers.boundedElastic());
        }

        @GetMapping("/flight/fail")
        public long fail(@RequestParam String k) {
            heldWhenFailing.set(permits.held("flight:" + k));
            throw new IllegalStateException("the handler failed");
        }

        @GetMapping("/flight/async")
        public CompletableFuture<String> async(@RequestParam String k) {
            return asyncAnswer;
        }

        @GetMapping(path = "/flight/stream", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
        public Flux<String> stream(@RequestParam String k) {
            return Flux.interval(Duration.ofMillis(100)).map(tick -> "tick " + tick);
        }
    }

    /** Every request the WebFlux application received, as its first filter saw it: to tell a request sent twice. */
    private static final Queue<String> received = new ConcurrentLinkedQueue<>();

    @Configuration(proxyBeanMethods = false)
    @Import(Api.class)
    static class ReactiveApi {

        @Bean
        WebFilter receivedRequests() {
            return new OrderedReceived();
        }
    }

    static final class OrderedReceived implements WebFilter, Ordered {

        @Override
        public int getOrder() {
            return Ordered.HIGHEST_PRECEDENCE;
        }

        @Override
        public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
            String seen = System.nanoTime() / 1000 + "us " + exchange.getRequest().getURI() + " from "
                    + exchange.getRequest().getRemoteAddress() + " id " + exchange.getRequest().getId();
            received.add(seen);
            return chain.filter(exchange).doOnEach(signal -> received.add(seen + " -> " + signal.getType() + " "
                    + exchange.getResponse().getStatusCode() + " at " + System.nanoTime() / 1000 + "us"))
                    .doOnCancel(() -> received.add(seen + " -> cancel"));
        }
    }

    @BeforeAll
    static void start() {
        TestRedis.endpoint().flushAll();
        String[] route = { "ratelimit.routes.flight.paths=/flight/**", "ratelimit.routes.flight.key=param['k']",
                "ratelimit.routes.flight.rate=1", "ratelimit.routes.flight.algorithm=in-flight" };
        servlet = apps.start(WebApplicationType.SERVLET, Api.class, route);
        reactive = apps.start(WebApplicationType.REACTIVE, ReactiveApi.class, route);
    }

    @AfterAll
    static void stop() {
        if (servlet != null) {
            servlet.close();
        }
        if (reactive != null) {
            reactive.close();
        }
    }

    @Test
    void aServletRequestGivesItsPermitBackWhenAnswered() throws Exception {
        HttpResponse<String> answered = apps.send(servlet, "GET", "/flight/done?k=mvc");
        assertThat(answered.body()).as("held while the handler ran (answered %s with %s; Redis now: %s)",
                answered.statusCode(), answered.headers().map(), permits.describe("flight:mvc")).isEqualTo("1");
        permits.awaitGivenBack("flight:mvc");
        assertThat(apps.send(servlet, "GET", "/flight/done?k=mvc").statusCode()).isEqualTo(200);
    }

    @Test
    void aServletRequestGivesItsPermitBackWhenItsHandlerThrows() throws Exception {
        assertThat(apps.send(servlet, "GET", "/flight/fail?k=mvc-fail").statusCode()).isEqualTo(500);
        assertThat(heldWhenFailing).as("held while the handler ran").hasValue(1);
        permits.awaitGivenBack("flight:mvc-fail");
    }

    @Test
    void anAsyncServletRequestHoldsItsPermitUntilItsAnswerCompletes() throws Exception {
        asyncAnswer = new CompletableFuture<>();
        CompletableFuture<HttpResponse<String>> pending = CompletableFuture.supplyAsync(() -> {
            try {
                return apps.send(servlet, "GET", "/flight/async?k=mvc-async");
            }
            catch (Exception ex) {
                throw new IllegalStateException(ex);
            }
        });
        permits.awaitHeld("flight:mvc-async", 1);
        HttpResponse<String> refused = apps.send(servlet, "GET", "/flight/async?k=mvc-async");
        assertThat(refused.statusCode()).as("a second request while the first is in flight").isEqualTo(429);
        assertThat(refused.headers().firstValue("Retry-After")).as("no time is known at which a request ends")
                .isEmpty();
        asyncAnswer.complete("answered");
        assertThat(pending.join().body()).isEqualTo("answered");
        permits.awaitGivenBack("flight:mvc-async");
    }

    @Test
    void aWebFluxRequestGivesItsPermitBackWhenItsResponseCompletes() throws Exception {
        long askedMicros = System.nanoTime() / 1000;
        HttpResponse<String> answered = apps.send(reactive, "GET", "/flight/done-reactive?k=flux");
        assertThat(answered.body()).as("held while the handler ran (answered %s with %s; Redis now: %s)",
                answered.statusCode(), answered.headers().map(), permits.describe("flight:flux") + "; received: "
                + received + "; test asked at " + askedMicros + "us").isEqualTo("1");
        permits.awaitGivenBack("flight:flux");
    }

    /**
     * The client goes away from a streaming response: the server learns it when it next writes (Reactor Netty does not
     * read the connection of a request it is answering), cancels the response, and the permit goes back.
     */
    @Test
    void aWebFluxRequestGivesItsPermitBackWhenTheClientGoesAway() throws Exception {
        int port = Integer.parseInt(reactive.getEnvironment().getProperty("local.server.port"));
        try (Socket client = new Socket("127.0.0.1", port)) {
            client.getOutputStream().write("GET /flight/stream?k=flux-gone HTTP/1.1\r\nHost: localhost\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            BufferedReader response = new BufferedReader(new InputStreamReader(client.getInputStream(),
                    StandardCharsets.US_ASCII));
            String line;
            while ((line = response.readLine()) != null && !line.contains("tick")) {
                // the headers, then the first event
            }
            assertThat(line).as("the first event").isNotNull();
            assertThat(permits.held("flight:flux-gone")).as("held while the response streams").isEqualTo(1);
        }
        permits.awaitGivenBack("flight:flux-gone");
    }
}
