package io.github.redissonratelimit.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/** The replay of {@code MONITOR} lines that tells how many permits an in-flight limiter held at once. */
class LeaseTraceTest {

    private static final String KEYS = "\"5\" \"rate_limit:{export}\" \"rate_limit:{export}:value\" "
            + "\"rate_limit:{export}:value:c\" \"rate_limit:{export}:permits\" \"rate_limit:{export}:permits:c\"";

    private final LeaseTrace.Replay replay = new LeaseTrace.Replay("{export}");

    @Test
    void countsThePermitsOfTheLeasesInTheKeyInTheOrderRedisRanTheScripts() {
        grant(100, 2, 2);
        grant(200, 1, 3);
        refuse(300);
        giveBack(900, 100, 2, 1);
        grant(1_000, 2, 3);
        giveBack(2_000, 200, 1, 2);

        LeaseTrace.Result result = replay.result();
        assertThat(result.decisions()).isEqualTo(4);
        assertThat(result.grants()).isEqualTo(3);
        assertThat(result.giveBacks()).isEqualTo(2);
        assertThat(result.givenBack()).isEqualTo(2);
        assertThat(result.mostInLeases()).as("2 + 1, then 1 + 2").isEqualTo(3);
        assertThat(result.mostWritten()).isEqualTo(3);
        assertThat(result.leaseMicros()).containsExactly(800, 1_800);
        assertThat(result.stillHeld()).isEqualTo(1);
        // 2 permits for 100 µs, 3 for 700, 1 for 100, 3 for 1,000: 5,400 permit-µs over 1,900 µs
        assertThat(result.meanInLeases()).isCloseTo(5_400 / 1_900.0, Offset.offset(1e-9));
    }

    @Test
    void aRenewalIsNoGrantAndALeaseThatEndedUnrenewedIsDroppedByItsScore() {
        grant(100, 1, 1);
        grant(200, 1, 2);
        replay.line(stamp(300) + " [0 127.0.0.1:1] \"EVALSHA\" \"sha\" " + KEYS + " \"1\" \"0\" \"0\" \"r"
                + (START + 200) + "\" \"" + HOLDER + "\" \"renew\"");
        lua(300, "\"zadd\" \"rate_limit:{export}:permits\" \"9000000\" \"" + (START + 200) + ":1:" + HOLDER + "\"");
        // 2 s later the next decision finds the first lease ended (1 s after its grant) and drops it
        replay.line(stamp(2_000_000) + " [0 127.0.0.1:1] \"EVALSHA\" \"sha\" " + KEYS
                + " \"i 1 0 0 - 8:1000 x 4242@host -\"");
        lua(2_000_000, "\"zremrangebyscore\" \"rate_limit:{export}:permits\" \"-inf\" \""
                + (START + 2_000_000) / 1_000 + "\"");

        LeaseTrace.Result result = replay.result();
        assertThat(result.grants()).isEqualTo(2);
        assertThat(result.renewals()).isEqualTo(1);
        assertThat(result.mostInLeases()).isEqualTo(2);
        assertThat(result.droppedUnended()).isEqualTo(1);
        assertThat(result.stillHeld()).as("the renewed lease ends later").isEqualTo(1);
    }

    @Test
    void ignoresOtherLimitersAndCommandsOutsideItsScripts() {
        replay.line(stamp(100) + " [0 127.0.0.1:1] \"EVALSHA\" \"sha\" \"1\" \"ratelimit-instances:\" \"beat\"");
        lua(101, "\"zadd\" \"rate_limit:{export}:permits\" \"9\" \"5:8\"");
        replay.line(stamp(200) + " [0 127.0.0.1:1] \"EVALSHA\" \"sha\" \"5\" \"rate_limit:{other}\""
                + " \"i 1 0 0 - 8:1 x 4242@host -\"");
        lua(201, "\"zadd\" \"rate_limit:{other}:permits\" \"9\" \"6:8\"");

        LeaseTrace.Result result = replay.result();
        assertThat(result.decisions()).isZero();
        assertThat(result.mostInLeases()).isZero();
    }

    @Test
    void unescapesTheWordsAsRedisEscapesThem() {
        assertThat(LeaseTrace.Replay.words("1.2 [0 lua] \"set\" \"a\\\"b\" \"\\x41\\\\\"", 10))
                .containsExactly("set", "a\"b", "A\\");
    }

    /** The instance the leases name as their holder. */
    private static final String HOLDER = "4242@host";

    /** The µs of Redis's clock the replayed lines start from. */
    private static final long START = 1_000_000_000;

    private static String stamp(long micros) {
        long at = START + micros;
        return String.format("%d.%06d", at / 1_000_000, at % 1_000_000);
    }

    /** A decision at {@code micros} that grants a lease of {@code permits}, its id the µs of its grant. */
    private void grant(long micros, int permits, long held) {
        long id = START + micros;
        replay.line(stamp(micros) + " [0 127.0.0.1:1] \"EVALSHA\" \"sha\" " + KEYS + " \"i " + permits
                + " 0 0 - 8:1000 x 4242@host -\"");
        lua(micros, "\"time\"");
        lua(micros, "\"zadd\" \"rate_limit:{export}:permits\" \"" + (id / 1_000 + 1_000) + "\" \"" + id + ":"
                + permits + ":" + HOLDER + "\"");
        lua(micros, "\"set\" \"rate_limit:{export}:value\" \"i" + held + ":" + id + ":8:1000\" \"PX\" \"1000\"");
    }

    private void refuse(long micros) {
        replay.line(stamp(micros) + " [0 127.0.0.1:1] \"EVALSHA\" \"sha\" " + KEYS
                + " \"i 8 0 0 - 8:1000 x 4242@host -\"");
        lua(micros, "\"get\" \"rate_limit:{export}:value\"");
    }

    /** The give-back at {@code micros} of the lease granted at {@code granted}. */
    private void giveBack(long micros, long granted, int permits, long held) {
        long id = START + granted;
        replay.line(stamp(micros) + " [0 127.0.0.1:1] \"EVALSHA\" \"sha\" " + KEYS + " \"" + permits
                + "\" \"0\" \"0\" \"r" + id + "\" \"" + HOLDER + "\"");
        lua(micros, "\"zrem\" \"rate_limit:{export}:permits\" \"" + id + ":" + permits + ":" + HOLDER + "\"");
        lua(micros, "\"set\" \"rate_limit:{export}:value\" \"i" + held + ":" + id + ":8:1000\" \"PX\" \"1000\"");
    }

    private void lua(long micros, String command) {
        replay.line(stamp(micros) + " [0 lua] " + command);
    }
}
