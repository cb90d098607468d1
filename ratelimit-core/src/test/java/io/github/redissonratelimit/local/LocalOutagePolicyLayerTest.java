package io.github.redissonratelimit.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.RateLimitBackendUnavailableException;
import io.github.redissonratelimit.RateLimitBackendUnavailableException.Reason;
import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Completions;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.RateLimitBackend;

/** The local outage policy as a layer of the stack: which requests it decides, and what it gives back where. */
class LocalOutagePolicyLayerTest {

    private static final LimitSpec TWO_PER_MINUTE = new LimitSpec(2, Duration.ofMinutes(1), RateLimitMode.OVERALL);

    private final List<String> asked = new ArrayList<>();
    private final List<String> released = new ArrayList<>();
    private final List<Integer> batches = new ArrayList<>();
    private boolean down;
    /** When set, Redis's answer to the next call: one still on its way. */
    private CompletableFuture<Decision> onItsWay;

    private final RateLimitBackend redis = new RateLimitBackend() {
        @Override
        public CompletionStage<Decision> acquire(AcquireRequest request) {
            asked.add(request.limiterName());
            CompletableFuture<Decision> late = onItsWay;
            if (late != null) {
                onItsWay = null;
                return late;
            }
            return down ? CompletableFuture.failedFuture(new RateLimitBackendUnavailableException(request.limiterName(),
                    Reason.TIMEOUT, Duration.ofSeconds(1), "Redis did not answer", null))
                    : CompletableFuture.completedFuture(Decision.allow());
        }

        @Override
        public List<CompletionStage<Decision>> acquireAll(List<AcquireRequest> requests) {
            batches.add(requests.size());
            return RateLimitBackend.super.acquireAll(requests);
        }

        @Override
        public CompletionStage<Void> release(AcquireRequest request, Decision granted) {
            released.add(request.limiterName());
            return CompletableFuture.completedFuture(null);
        }
    };

    private final LocalOutagePolicy policy = new LocalOutagePolicy(redis,
            new LocalFallback(InstanceCount.fixed(1, 0), 100));

    private static AcquireRequest request(String name, BackendErrorPolicy onBackendError, boolean shadow) {
        return new AcquireRequest(name, TWO_PER_MINUTE, 1, onBackendError, shadow, Duration.ZERO);
    }

    private static Decision join(CompletionStage<Decision> stage) {
        return stage.toCompletableFuture().join();
    }

    @Test
    void withoutAnAnswerOfRedisALocalRequestIsDecidedInMemoryToItsShare() {
        down = true;
        AcquireRequest local = request("rl:{a}", BackendErrorPolicy.LOCAL, false);

        List<Decision> decisions = List.of(join(policy.acquire(local)), join(policy.acquire(local)),
                join(policy.acquire(local)));

        assertThat(decisions).extracting(Decision::allowed).containsExactly(true, true, false);
        assertThat(decisions).allMatch(Decision::local);
    }

    @Test
    void requestsUnderAnotherPolicyOrInShadowModePassThrough() {
        down = true;
        for (AcquireRequest request : List.of(request("rl:{allow}", BackendErrorPolicy.ALLOW, false),
                request("rl:{deny}", BackendErrorPolicy.DENY, false),
                request("rl:{shadow}", BackendErrorPolicy.LOCAL, true))) {
            CompletableFuture<Decision> decision = policy.acquire(request).toCompletableFuture();
            assertThat(decision).as(request.limiterName()).isCompletedExceptionally();
            assertThat(decision.handle((ok, ex) -> Completions.unwrap(ex)).join())
                    .isInstanceOf(RateLimitBackendUnavailableException.class);
        }
    }

    @Test
    void aGrantMadeInMemoryGoesBackToTheShareNotToRedis() {
        AcquireRequest local = request("rl:{b}", BackendErrorPolicy.LOCAL, false);
        Decision byRedis = join(policy.acquire(local));
        down = true;
        Decision inMemory = join(policy.acquire(local));
        assertThat(byRedis.local()).isFalse();
        assertThat(inMemory.local()).isTrue();
        assertThat(join(policy.acquire(local)).allowed()).as("Redis's grant and the one in memory fill the share")
                .isFalse();

        policy.release(local, inMemory).toCompletableFuture().join();
        assertThat(released).as("nothing sent to Redis for a grant it never made").isEmpty();
        assertThat(join(policy.acquire(local)).allowed()).as("the share has its permit back").isTrue();

        policy.release(local, byRedis).toCompletableFuture().join();
        assertThat(released).containsExactly("rl:{b}");
    }

    @Test
    void aGrantOfRedisThatComesAfterTheShareWasFilledInMemoryIsGivenBackAndRejected() {
        AcquireRequest local = request("rl:{e}", BackendErrorPolicy.LOCAL, false);
        CompletableFuture<Decision> late = new CompletableFuture<>();
        onItsWay = late;
        CompletableFuture<Decision> sentFirst = policy.acquire(local).toCompletableFuture();
        down = true;
        assertThat(join(policy.acquire(local)).allowed()).isTrue();
        assertThat(join(policy.acquire(local)).allowed()).isTrue();

        late.complete(Decision.allow());
        Decision decision = sentFirst.join();
        assertThat(decision.allowed()).as("the share is full: Redis may not know the grants made in memory").isFalse();
        assertThat(decision.local()).isTrue();
        assertThat(released).as("Redis's grant given back").containsExactly("rl:{e}");
    }

    @Test
    void theLimitsOfOneCallReachRedisAsOneBatch() {
        List<CompletionStage<Decision>> decisions = policy.acquireAll(List.of(
                request("rl:{c}", BackendErrorPolicy.LOCAL, false), request("rl:{d}", BackendErrorPolicy.ALLOW, false)));

        assertThat(decisions).hasSize(2).allMatch(stage -> join(stage).allowed());
        assertThat(batches).containsExactly(2);
        assertThat(asked).containsExactly("rl:{c}", "rl:{d}");
    }
}
