package io.github.redissonratelimit.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.ProxyFactory;

import io.github.redissonratelimit.local.DecisionStacks;
import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.key.KeyExpressionParser;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.operation.AnnotationRateLimitOperationSource;
import io.github.redissonratelimit.outcome.RateLimitOutcome;
import io.github.redissonratelimit.outcome.RateLimitOutcome.Result;

/**
 * The limits of one call are asked at once (their commands share a pipeline: one round trip), and their answers
 * read in declaration order give the outcome of asking them in turn. Pure logic: a backend whose answers the
 * test completes by hand.
 */
class LimitsAskedAtOnceTest {

    private final Map<String, CompletableFuture<Decision>> asked = new ConcurrentHashMap<>();
    private final List<String> released = new CopyOnWriteArrayList<>();
    private final List<List<RateLimitOutcome>> outcomes = new CopyOnWriteArrayList<>();

    private final RateLimitBackend byHand = new RateLimitBackend() {
        @Override
        public CompletionStage<Decision> acquire(AcquireRequest request) {
            String limiterName = request.limiterName();
            LimitSpec spec = request.spec();
            long permits = request.permits();
            return asked.computeIfAbsent(limiterName, name -> name.contains("known-out")
                    ? CompletableFuture.completedFuture(Decision.reject(Duration.ofSeconds(5)))
                    : new CompletableFuture<>());
        }

        @Override
        public CompletionStage<Void> release(AcquireRequest request, Decision granted) {
            String limiterName = request.limiterName();
            LimitSpec spec = request.spec();
            long permits = request.permits();
            released.add(limiterName);
            return CompletableFuture.completedFuture(null);
        }
    };

    private Orders orders() {
        RateLimitInterceptor interceptor = new RateLimitInterceptor(
                new AnnotationRateLimitOperationSource(new KeyExpressionParser()),
                DecisionStacks.around(byHand));
        interceptor.setListeners(List.of(outcomes::add));
        interceptor.setAsyncExecutor(Runnable::run);
        ProxyFactory factory = new ProxyFactory(new Orders());
        factory.setProxyTargetClass(true);
        factory.addAdvice(interceptor);
        return (Orders) factory.getProxy();
    }

    @Test
    void bothLimitsAreAskedBeforeEitherAnswers() throws Exception {
        CompletableFuture<String> call = orders().submit("ann");

        assertThat(asked).containsOnlyKeys("rate_limit:{user:ann}", "rate_limit:{region:eu}");
        asked.values().forEach(answer -> answer.complete(Decision.allow()));

        assertThat(call.get(30, TimeUnit.SECONDS)).isEqualTo("ok");
        assertThat(outcomes).singleElement().satisfies(call2 -> assertThat(call2)
                .extracting(RateLimitOutcome::limitName).containsExactly("user", "region"));
        assertThat(released).isEmpty();
    }

    @Test
    void theFirstRejectionInDeclarationOrderDecidesAndALaterGrantIsGivenBackUnreported() {
        CompletableFuture<String> call = orders().submit("bob");
        asked.get("rate_limit:{region:eu}").complete(Decision.allow()); // the later limit answers first
        asked.get("rate_limit:{user:bob}").complete(Decision.reject(Duration.ofSeconds(3)));

        assertThatThrownBy(() -> call.get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(RateLimitExceededException.class);
        assertThat(outcomes).singleElement().satisfies(only -> assertThat(only).singleElement()
                .extracting(RateLimitOutcome::limitName, RateLimitOutcome::result)
                .containsExactly("user", Result.REJECTED));
        assertThat(released).containsExactly("rate_limit:{region:eu}");
    }

    @Test
    void aRejectionAlreadyKnownStopsTheAskingAsTheSequentialOrderWould() {
        assertThatThrownBy(() -> orders().blocked("cy")).isInstanceOf(RateLimitExceededException.class);

        assertThat(asked).containsOnlyKeys("rate_limit:{known-out:cy}");
        assertThat(released).isEmpty();
    }

    public static class Orders {

        @RateLimit(name = "user", key = "'user:' + #user", rate = 5)
        @RateLimit(name = "region", key = "'region:eu'", rate = 50)
        public CompletableFuture<String> submit(String user) {
            return CompletableFuture.completedFuture("ok");
        }

        @RateLimit(name = "known", key = "'known-out:' + #user", rate = 5)
        @RateLimit(name = "region", key = "'region:us'", rate = 50)
        public String blocked(String user) {
            return "ok";
        }
    }
}
