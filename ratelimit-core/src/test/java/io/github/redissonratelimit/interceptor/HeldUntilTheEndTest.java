package io.github.redissonratelimit.interceptor;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.key.KeyExpressionParser;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.operation.AnnotationRateLimitOperationSource;
import io.github.redissonratelimit.operation.RateLimitOperation;

/**
 * {@link HeldUntilTheEnd} gives back the permits of each decision that holds them once both the decision and the end
 * of its request came, in either order, and each once. Pure logic: a backend that grants every key but those of
 * {@code full:} and records what is given back, on the caller's thread.
 */
class HeldUntilTheEndTest {

    private static final RateLimitOperation IN_FLIGHT = RateLimitOperation.builder("Api.export()", "export",
            new LimitSpec(3, Duration.ofSeconds(30), RateLimitMode.OVERALL, LimitAlgorithm.IN_FLIGHT)).build();
    private static final RateLimitOperation SLIDING_WINDOW = RateLimitOperation.builder("Api.search()", "search",
            new LimitSpec(3, Duration.ofSeconds(1), RateLimitMode.OVERALL)).build();

    private final List<String> givenBack = new CopyOnWriteArrayList<>();
    private final RateLimitDecider decider = new RateLimitInterceptor(
            new AnnotationRateLimitOperationSource(new KeyExpressionParser()), new RateLimitBackend() {
                @Override
                public CompletionStage<Decision> acquire(AcquireRequest request) {
                    return CompletableFuture.completedFuture(request.limiterName().contains("full:")
                            ? Decision.reject(Duration.ZERO) : Decision.allow());
                }

                @Override
                public CompletionStage<Void> release(AcquireRequest request, Decision granted) {
                    givenBack.add(request.limiterName());
                    return CompletableFuture.completedFuture(null);
                }
            }).decider();
    private final HeldUntilTheEnd request = new HeldUntilTheEnd();

    @Test
    void aDecisionKeptBeforeTheEndIsEndedAtTheEndOnce() {
        RateLimitDecision decision = decide(IN_FLIGHT, "a");

        assertThat(request.keep(decision)).isSameAs(decision);
        assertThat(givenBack).as("held while the request runs").isEmpty();
        request.end();
        assertThat(givenBack).containsExactly("rate_limit:{a}");
        request.end();
        assertThat(givenBack).as("a second end gives nothing back").containsExactly("rate_limit:{a}");
    }

    @Test
    void aDecisionThatComesAfterTheEndIsEndedAtOnce() {
        request.end(); // cancelled while its decision was on the way
        RateLimitDecision decision = decide(IN_FLIGHT, "late");

        assertThat(request.keep(decision)).isSameAs(decision);
        assertThat(givenBack).containsExactly("rate_limit:{late}");
        request.end();
        assertThat(givenBack).as("a second end gives nothing back").containsExactly("rate_limit:{late}");
    }

    @Test
    void everyDecisionKeptIsEndedAtTheEnd() {
        request.keep(decide(IN_FLIGHT, "first"));
        request.keep(decide(IN_FLIGHT, "second"));
        assertThat(givenBack).isEmpty();

        request.end();
        request.keep(decide(IN_FLIGHT, "third"));
        request.end();

        assertThat(givenBack).containsExactlyInAnyOrder("rate_limit:{first}", "rate_limit:{second}",
                "rate_limit:{third}");
    }

    @Test
    void aDecisionThatHoldsNothingIsLeftAlone() {
        RateLimitDecision window = decide(SLIDING_WINDOW, "window");
        RateLimitDecision refused = decide(IN_FLIGHT, "full:refused");
        // the in-flight limit granted, the next one refused: the grant went back with the refusal
        RateLimitDecision refusedLater = decide(List.of(new KeyedLimit(IN_FLIGHT, "granted", 1),
                new KeyedLimit(SLIDING_WINDOW, "full:window", 1)));
        assertThat(window.holdsUntilTheEnd()).isFalse();
        assertThat(refused.passed()).isFalse();
        assertThat(refusedLater.passed()).isFalse();
        assertThat(givenBack).containsExactly("rate_limit:{granted}");

        assertThat(request.keep(window)).isSameAs(window);
        assertThat(request.keep(refused)).isSameAs(refused);
        assertThat(request.keep(refusedLater)).isSameAs(refusedLater);
        request.end();

        assertThat(givenBack).as("nothing more").containsExactly("rate_limit:{granted}");
    }

    private RateLimitDecision decide(RateLimitOperation operation, String key) {
        RateLimitDecision decision = decide(List.of(new KeyedLimit(operation, key, 1)));
        assertThat(decision.passed()).isEqualTo(!key.startsWith("full:"));
        return decision;
    }

    private RateLimitDecision decide(List<KeyedLimit> limits) {
        return decider.decide(limits).toCompletableFuture().join();
    }
}
