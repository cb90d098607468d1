package io.github.redissonratelimit.redis;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static io.github.redissonratelimit.limiter.BackendCalls.await;
import static io.github.redissonratelimit.limiter.BackendCalls.state;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.redis.CommandStats;
import io.github.redissonratelimit.test.redis.KeySlot;

/**
 * The calls with several limits of different algorithms (decided in one script call as they would be apart, the
 * earlier grants given back when a later limit rejects) and the keys of each algorithm under hostile user input, on
 * top of {@link AbstractAlgorithmBehaviourTest}'s tests of one limiter.
 */
abstract class AbstractAlgorithmCallsTest extends AbstractAlgorithmBehaviourTest {

    /** A limiter name in the slot of {@code name}, so that the two can be decided in one script call anywhere. */
    private String inTheSlotOf(String name, String key) {
        return IntStream.range(0, 1_000_000).mapToObj(i -> naming.limiterName(key + ":" + i))
                .filter(other -> KeySlot.of(other) == KeySlot.of(name)).findFirst().orElseThrow();
    }

    private List<Decision> acquireAll(List<AcquireRequest> requests) {
        List<CompletionStage<Decision>> stages = first.acquireAll(requests);
        assertThat(stages).as("every limit asked").hasSameSizeAs(requests);
        return stages.stream().map(stage -> await(stage)).toList();
    }

    @Test
    void theLimitsOfOneCallOfEveryAlgorithmAreDecidedInOneScriptCallAsTheyWouldBeApart() {
        String user = naming.limiterName("together:user");
        String region = inTheSlotOf(user, "together:region");
        String quota = inTheSlotOf(user, "together:quota");
        String hourly = inTheSlotOf(user, "together:hourly");
        List<AcquireRequest> requests = List.of(AcquireRequest.of(user, ALGORITHMS.get(0).spec(3), 1),
                AcquireRequest.of(region, ALGORITHMS.get(1).spec(5), 1),
                AcquireRequest.of(quota, ALGORITHMS.get(2).spec(4), 1),
                AcquireRequest.of(hourly, ALGORITHMS.get(3).spec(2), 1));
        RedissonRateLimitBackend.loadScripts(firstClient).toCompletableFuture().join();
        acquire(first, naming.limiterName("together:warm-up"), ALGORITHMS.get(0).spec(3), 1); // a cluster's slot map

        CommandStats before = redis().commandStats();
        for (int call = 0; call < 7; call++) {
            List<Decision> decisions = acquireAll(requests);
            for (int limit = 0; limit < requests.size(); limit++) {
                long capacity = requests.get(limit).spec().capacity();
                Decision decision = decisions.get(limit);
                assertThat(decision.allowed()).as("%s, call %d", requests.get(limit).spec(), call)
                        .isEqualTo(call < capacity);
                assertThat(decision.state().available()).as("%s, call %d", requests.get(limit).spec(), call)
                        .isEqualTo(Math.max(0, capacity - 1 - call));
                if (!decision.allowed()) {
                    assertWait(decision.retryAfter(), ALGORITHMS.get(limit).expectedWait(1, capacity));
                }
            }
        }
        CommandStats delta = redis().commandStats().minus(before);

        assertThat(delta.calls("evalsha") + delta.calls("eval")).as("one script call per call: %s", delta).isEqualTo(7);
        assertThat(redis().string("GET", LimiterNaming.valueKey(region))).startsWith("g");
        assertThat(redis().string("GET", LimiterNaming.valueKey(quota))).startsWith("f4:");
        assertThat(redis().string("GET", LimiterNaming.valueKey(hourly))).startsWith("f2:");
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void aLaterLimitsRejectionGivesTheEarlierGrantsBack(Algorithm algorithm) {
        Algorithm later = ALGORITHMS.get((ALGORITHMS.indexOf(algorithm) + 1) % ALGORITHMS.size());
        for (RateLimitMode mode : RateLimitMode.values()) {
            String earlierName = naming.limiterName("refund:earlier:" + mode);
            String laterName = inTheSlotOf(earlierName, "refund:later:" + mode);
            LimitSpec five = algorithm.spec(5, mode);
            LimitSpec one = later.spec(1, mode);
            assertThat(acquire(first, laterName, one, 1).allowed()).isTrue();
            assertThat(acquire(first, earlierName, five, 2).allowed()).isTrue();

            List<AcquireRequest> requests = List.of(AcquireRequest.of(earlierName, five, 2),
                    AcquireRequest.of(laterName, one, 1));
            List<Decision> decisions = acquireAll(requests);
            assertThat(decisions.get(0).allowed()).as(mode.name()).isTrue();
            assertThat(decisions.get(1).allowed()).as("the later limit (%s, %s)", later, mode).isFalse();
            assertThat(state(first, earlierName, five).available()).as(mode.name()).isEqualTo(1);

            await(first.release(requests.get(0), decisions.get(0)));

            assertThat(state(first, earlierName, five).available()).as("given back, %s", mode).isEqualTo(3);
            assertThat(allowed(first, earlierName, five, 1, 5)).as(mode.name()).isEqualTo(3);
            assertThat(state(first, laterName, one).available()).as("the later limit is untouched").isZero();
        }
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void bracesInUserInputKeepEveryKeyOfALimiterInOneSlot(Algorithm algorithm) {
        String[] hostile = { "}{", "{", "}", "{}", "a{b}c", "x}{y", "{{user}}", "}user{", "{a}{b}", "50% {off}" };

        for (String key : hostile) {
            for (RateLimitMode mode : RateLimitMode.values()) {
                LimitSpec two = algorithm.spec(2, mode);
                String name = naming.limiterName(mode + ":" + key);
                assertThat(allowed(first, name, two, 1, 3)).as(key).isEqualTo(2);
                Decision rejected = acquire(first, name, two, 1);
                assertWait(rejected.retryAfter(), algorithm.expectedWait(1, 2));
                List<String> keys = redis().keys(name.replace("[", "\\[").replace("*", "\\*") + "*");
                assertThat(keys).as(key).isNotEmpty()
                        .allSatisfy(stored -> assertThat(KeySlot.of(stored)).isEqualTo(KeySlot.of(name)));
            }
        }
    }
}
