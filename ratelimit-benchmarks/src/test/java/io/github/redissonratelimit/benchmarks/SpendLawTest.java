package io.github.redissonratelimit.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.github.redissonratelimit.test.redis.RedisServerProcess;

/** The check of the law at spend time over the logs of spends ({@link SpendLog}, {@link SpendLaw}). */
class SpendLawTest {

    private static final long MS = 1_000_000;

    private static final long US = 1_000;

    private static final long SECOND_MICROS = 1_000_000;

    @TempDir
    Path files;

    @Test
    void aWindowOfOneSecondWithMoreThanTheRateIsAViolationAndOneWithTheRateIsNot() {
        try (SpendLog first = log("first"); SpendLog second = log("second")) {
            spend(first, 10, 500 * MS, 500 * MS);
            spend(second, 10, 1_600 * MS, 1_600 * MS); // 1.1 s later: never in one window with the first 10
            SpendLaw.Result apart = SpendLaw.check(List.of(first, second), 10, SECOND_MICROS);
            assertThat(apart.mostInAWindow()).isEqualTo(10);
            assertThat(apart.windowsOver()).isZero();
            assertThat(apart.spent()).isEqualTo(20);

            spend(second, 1, 1_400 * MS, 1_400 * MS); // 0.9 s after the first 10, 0.2 s before the last 10
            SpendLaw.Result over = SpendLaw.check(List.of(first, second), 10, SECOND_MICROS);
            assertThat(over.mostInAWindow()).isEqualTo(11);
            // the windows (a, a + 1 s], one per µs of a, holding the first 10 and it (400 <= a < 500 ms) or it and
            // the last 10 (600 <= a < 1,400 ms)
            assertThat(over.windowsOver()).isEqualTo(100_000 + 800_000);
            assertThat(over.mostSurely()).isEqualTo(11);
            assertThat(over.windowsSurelyOver()).as("exact spends: surely over").isEqualTo(100_000 + 800_000);
        }
    }

    @Test
    void aSpendIsChargedToEveryWindowItsCallOverlaps() {
        try (SpendLog spends = log("spends")) {
            spend(spends, 10, 500 * MS, 500 * MS);
            // a call from 1.45 s to 1.55 s: spent 0.95 to 1.05 s after the first 10, maybe within 1 s of them
            spends.spent(1_450 * MS, 1_550 * MS);
            SpendLaw.Result maybe = SpendLaw.check(List.of(spends), 10, SECOND_MICROS);
            assertThat(maybe.windowsOver()).isPositive();
            assertThat(maybe.windowsSurelyOver()).as("not decided at this resolution").isZero();
            assertThat(maybe.mostSurely()).isEqualTo(10);
        }
    }

    /** The check's resolution is Redis's: a µs. The check of 20 µs buckets and ms windows found the first over. */
    @Test
    void aWindowIsDecidedToTheMicrosecond() {
        try (SpendLog spends = log("spends")) {
            spends.spent(500_990 * US, 500_990 * US);
            spends.spent(1_500_995 * US, 1_500_995 * US); // 1 s and 5 µs later: never in one window
            assertThat(SpendLaw.check(List.of(spends), 1, SECOND_MICROS).windowsOver()).isZero();
        }
        try (SpendLog spends = log("exactly")) {
            spends.spent(500_000 * US, 500_000 * US);
            // read as 1,500,000 µs by Redis's clock: 1 s later, outside (a, a + 1 s] for every a holding the first
            spends.spent(1_500_000 * US + 999, 1_500_000 * US + 999);
            assertThat(SpendLaw.check(List.of(spends), 1, SECOND_MICROS).windowsOver()).isZero();
        }
        try (SpendLog spends = log("within")) {
            spends.spent(500_000 * US, 500_000 * US);
            spends.spent(1_499_999 * US, 1_499_999 * US); // 1 µs under 1 s later: the one window a = 499,999 µs
            SpendLaw.Result over = SpendLaw.check(List.of(spends), 1, SECOND_MICROS);
            assertThat(over.windowsOver()).isEqualTo(1);
            assertThat(over.windowsSurelyOver()).isEqualTo(1);
        }
        try (SpendLog spends = log("straddling")) {
            spends.spent(500_000 * US, 500_000 * US);
            // a call from 1,499,999.5 to 1,500,000.5 µs: read as 1,499,999 or 1,500,000, maybe in the window above
            spends.spent(1_499_999 * US + 500, 1_500_000 * US + 500);
            SpendLaw.Result maybe = SpendLaw.check(List.of(spends), 1, SECOND_MICROS);
            assertThat(maybe.windowsOver()).isEqualTo(1);
            assertThat(maybe.windowsSurelyOver()).isZero();
        }
    }

    @Test
    void whatOneJvmLoggedIsReadFromItsFileByAnother() {
        Path file = files.resolve("shared");
        try (SpendLog writer = SpendLog.create(file, 0, 3 * SECOND_MICROS)) {
            writer.spent(700 * MS, 701 * MS);
        }
        try (SpendLog reader = SpendLog.open(file, 0, 3 * SECOND_MICROS)) {
            assertThat(reader.startsAt(700_000)).isEqualTo(1);
            assertThat(reader.endsAt(701_000)).isEqualTo(1);
            assertThat(reader.startedBetween(700_000, 700_001)).isEqualTo(1);
            assertThat(SpendLaw.check(List.of(reader), 1, SECOND_MICROS).spent()).isEqualTo(1);
        }
    }

    @Test
    void redisReadsTheWallClockTheLogsRead() {
        try (RedisServerProcess server = RedisServerProcess.startOnFreePort()) {
            SpendLaw.requireSameClock(new RedisProbe("127.0.0.1", server.port()));
        }
    }

    @Test
    void aServerOfAnotherClockFailsTheCheck() throws Exception {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread server = new Thread(() -> answerTimeOneSecondAhead(socket), "clock-one-second-ahead");
            server.setDaemon(true);
            server.start();
            assertThatThrownBy(() -> SpendLaw.requireSameClock(new RedisProbe("127.0.0.1", socket.getLocalPort())))
                    .hasMessageContaining("not the same clock");
        }
    }

    /** Answers every command with {@code TIME}'s reply, one second ahead of the wall clock. */
    private static void answerTimeOneSecondAhead(ServerSocket socket) {
        try (Socket client = socket.accept(); InputStream in = client.getInputStream();
                OutputStream out = client.getOutputStream()) {
            byte[] buffer = new byte[256];
            while (in.read(buffer) > 0) {
                long micros = SpendLog.wallMicros() + SECOND_MICROS;
                String seconds = String.valueOf(micros / 1_000_000);
                String rest = String.valueOf(micros % 1_000_000);
                out.write(("*2\r\n$" + seconds.length() + "\r\n" + seconds + "\r\n$" + rest.length() + "\r\n" + rest
                        + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
        }
        catch (IOException ex) {
            // the check closed the connection
        }
    }

    private SpendLog log(String name) {
        return SpendLog.create(files.resolve(name), 0, 3 * SECOND_MICROS);
    }

    private static void spend(SpendLog log, int permits, long start, long end) {
        for (int i = 0; i < permits; i++) {
            log.spent(start, end);
        }
    }
}
