package io.github.redissonratelimit.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.operation.RateLimitOperation;
import io.github.redissonratelimit.outcome.RateLimitListener;
import io.github.redissonratelimit.outcome.RateLimitOutcome;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/**
 * What listeners are told of every limit of a settled call ({@link RateLimitListener#onSettled}), on a real Redis:
 * the limits after the one that rejected the call, with their grant given back, and the state after a
 * {@code chargeWhen} refund; while {@code onOutcomes} still reports the decisions only.
 */
@ExtendWith(RealRedisExtension.class)
class SettledLimitsTest {

    private RedisEndpoint redis;
    private final List<List<RateLimitOutcome>> outcomes = new CopyOnWriteArrayList<>();
    private final List<List<RateLimitOutcome>> settled = new CopyOnWriteArrayList<>();
    private final RateLimitListener listener = new RateLimitListener() {
        @Override
        public void onOutcomes(List<RateLimitOutcome> told) {
            outcomes.add(List.copyOf(told));
        }

        @Override
        public void onSettled(List<RateLimitOutcome> limits, List<RateLimitOperation> notAsked) {
            settled.add(List.copyOf(limits));
        }
    };

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        this.redis = redis;
        redis.flushAll();
    }

    public static class Exports {

        @RateLimit(name = "burst", key = "'burst:' + #user", rate = 1, interval = 60)
        @RateLimit(name = "daily", key = "'daily:' + #user", rate = 5, interval = 86400)
        public String export(String user) {
            return "export";
        }

        @RateLimit(name = "check", key = "#user", rate = 2, interval = 60, chargeWhen = "#result == 'denied'")
        public String check(String user, boolean ok) {
            return ok ? "ok" : "denied";
        }
    }

    @Test
    void aRejectedCallListsTheLimitsAskedWithItAfterTheOneThatRejectedIt() {
        try (LimitedBeans beans = LimitedBeans.startWithListener(redis, listener, Exports.class)) {
            Exports exports = beans.bean(Exports.class);
            exports.export("cy");
            assertThatThrownBy(() -> exports.export("cy")).isInstanceOf(RateLimitExceededException.class);

            assertThat(outcomes.get(1)).as("decisions: the rejection only").extracting(RateLimitOutcome::limitName)
                    .containsExactly("burst");
            assertThat(settled.get(1)).extracting(RateLimitOutcome::limitName).containsExactly("burst", "daily");
            RateLimitOutcome daily = settled.get(1).get(1);
            assertThat(daily.allowed()).isTrue();
            assertThat(daily.state().available()).as("its grant given back: 5 less the first call's").isEqualTo(4);
        }
    }

    @Test
    void aCallNotChargedIsToldWithTheStateAfterItsRefund() {
        try (LimitedBeans beans = LimitedBeans.startWithListener(redis, listener, Exports.class)) {
            Exports exports = beans.bean(Exports.class);
            exports.check("bo", true);
            assertThat(outcomes.get(0).get(0).state().available()).as("the decision").isEqualTo(1);
            assertThat(settled.get(0).get(0).state().available()).as("after the refund").isEqualTo(2);
            assertThat(settled.get(0).get(0).state().nextPermitIn()).as("nothing to wait for").isZero();
            exports.check("bo", false);
            assertThat(settled.get(1).get(0).state().available()).as("charged").isEqualTo(1);
        }
    }
}
