package io.github.redissonratelimit.test.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CommandStatsTest {

    private static final String BEFORE = """
            # Commandstats\r
            cmdstat_evalsha:calls=10,usec=700,usec_per_call=70.00,rejected_calls=0,failed_calls=0\r
            cmdstat_get:calls=3,usec=3,usec_per_call=1.00,rejected_calls=0,failed_calls=0\r
            """;

    private static final String AFTER = """
            # Commandstats\r
            cmdstat_evalsha:calls=30,usec=2100,usec_per_call=70.00,rejected_calls=0,failed_calls=0\r
            cmdstat_get:calls=3,usec=3,usec_per_call=1.00,rejected_calls=0,failed_calls=0\r
            cmdstat_config|resetstat:calls=1,usec=200,usec_per_call=200.00,rejected_calls=0,failed_calls=0\r
            """;

    @Test
    void readsCallsAndMicrosecondsOfEachCommandAndTheirDifference() {
        CommandStats before = CommandStats.parse(BEFORE);
        CommandStats delta = CommandStats.parse(AFTER).minus(before);

        assertThat(before.calls("EVALSHA")).isEqualTo(10);
        assertThat(before.micros("evalsha")).isEqualTo(700);
        assertThat(delta.calls("evalsha")).isEqualTo(20);
        assertThat(delta.micros("evalsha")).isEqualTo(1400);
        assertThat(delta.calls("get")).isZero();
        assertThat(delta.micros("config|resetstat")).isEqualTo(200);
        assertThat(delta.plus(delta).micros("evalsha")).isEqualTo(2800);
        assertThat(delta.without("evalsha").micros("evalsha")).isZero();
        assertThat(delta.totalMicros()).isEqualTo(1600);
    }
}
