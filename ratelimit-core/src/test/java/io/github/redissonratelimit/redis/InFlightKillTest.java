package io.github.redissonratelimit.redis;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static io.github.redissonratelimit.limiter.BackendCalls.await;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.redis.LeaseTimeline.Attempt;
import io.github.redissonratelimit.redis.LeaseTimeline.Lease;
import io.github.redissonratelimit.redis.ScriptCallLog.ScriptCall;
import io.github.redissonratelimit.test.redis.FreshRedis;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * kill -9 of a JVM that holds every permit of an in-flight limit: another instance gets them back one lease period
 * after the dead JVM's last renewal, by Redis's clock, at its first try after that, and not before. What the JVMs
 * did is read from {@code MONITOR} ({@link ScriptCallLog}); the other instance tries every {@link #POLL}.
 */
class InFlightKillTest {

    private static final Duration LEASE = Duration.ofSeconds(1);
    private static final Duration POLL = Duration.ofMillis(50);
    private static final LimitSpec THREE = new LimitSpec(3, LEASE, RateLimitMode.OVERALL, LimitAlgorithm.IN_FLIGHT);

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final String name = new LimiterNaming().limiterName("export:killed");

    @Test
    void theLeasesOfAJvmKilledWithSigkillComeBackOneLeasePeriodAfterItsLastRenewal() throws Exception {
        RedisEndpoint redis = fresh.endpoint();
        RedissonRateLimitBackend other = new RedissonRateLimitBackend(fresh.newClient());
        List<ScriptCall> calls = Collections.synchronizedList(new ArrayList<>());
        long killedAt;
        Decision regained;
        try (ScriptCallLog log = ScriptCallLog.start(redis, Set.of(name), calls)) {
            Process holder = holder(redis, "1", "2");
            try {
                awaitRenewals(redis);
                Thread.sleep(ThreadLocalRandom.current().nextLong(LEASE.toMillis() / 3)); // anywhere in a turn
            }
            finally {
                holder.destroyForcibly(); // SIGKILL: no shutdown hook, no give-back, no last renewal
                holder.waitFor();
            }
            killedAt = redisMicros(redis);
            regained = acquire(other, name, THREE, 3);
            for (int tries = 0; !regained.allowed(); tries++) {
                assertThat(tries).as("tries, %s apart, before the permits came back", POLL).isLessThan(200);
                Thread.sleep(POLL.toMillis());
                regained = acquire(other, name, THREE, 3);
            }
            await(other.release(AcquireRequest.of(name, THREE, 3), regained));
        }

        LeaseTimeline timeline = LeaseTimeline.of(name, List.copyOf(calls), List.of());
        long regainedId = Long.parseLong(regained.receipt().substring(1));
        List<Lease> killed = timeline.leases().stream().filter(lease -> lease.id() < killedAt).toList();
        assertThat(killed).hasSize(2).noneMatch(Lease::givenBack);
        assertThat(killed).as("renewed before the kill").allMatch(lease -> lease.renewals() > 0);
        long lastRenewal = killed.stream().mapToLong(Lease::renewedMicros).max().orElseThrow();
        long leasesEnd = killed.stream().mapToLong(Lease::unrenewedEndMicros).max().orElseThrow();
        assertThat(leasesEnd - lastRenewal).as("µs from the last renewal to the end of the leases")
                .isBetween(LEASE.toNanos() / 1000 - 1000, LEASE.toNanos() / 1000 + 1000);

        List<Attempt> tries = timeline.attempts().stream().filter(attempt -> attempt.stampMicros() > killedAt)
                .toList();
        assertThat(tries).as("tries after the kill: the kill gave nothing back").hasSizeGreaterThan(1);
        Attempt granted = tries.get(tries.size() - 1);
        assertThat(granted.leaseId()).isEqualTo(regainedId).isGreaterThanOrEqualTo(leasesEnd);
        assertThat(tries.subList(0, tries.size() - 1)).as("refused while the killed JVM's leases were held, granted "
                + "at the first try after").allMatch(attempt -> !attempt.granted()
                        && attempt.stampMicros() < leasesEnd);
        long previous = tries.get(tries.size() - 2).stampMicros();
        System.out.printf("[in-flight kill] permits back %.1f ms after the last renewal (lease %d ms), %.1f ms after"
                + " the leases ended; the try before %.1f ms earlier; %d tries%n", (regainedId - lastRenewal) / 1000.0,
                LEASE.toMillis(), (regainedId - leasesEnd) / 1000.0, (granted.stampMicros() - previous) / 1000.0,
                tries.size());
    }

    /** A JVM holding leases of {@code permits} each, started on this test's class path. */
    private Process holder(RedisEndpoint redis, String... permits) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(System.getProperty("java.home") + File.separator + "bin"
                + File.separator + "java", "-XX:TieredStopAtLevel=1", "-cp", testClassPath(),
                InFlightHolder.class.getName(), redis.address(), name, Long.toString(THREE.rate()),
                Long.toString(LEASE.toMillis())));
        command.addAll(List.of(permits));
        Process holder = new ProcessBuilder(command).redirectErrorStream(true).start();
        CompletableFuture<String> holding = new CompletableFuture<>();
        StringBuilder output = new StringBuilder();
        Thread reader = new Thread(() -> {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(holder.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    output.append(line).append('\n');
                    if (line.startsWith(InFlightHolder.HOLDING)) {
                        holding.complete(line);
                    }
                }
            }
            catch (IOException ex) {
                // the process was killed
            }
            holding.complete(null);
        }, "in-flight-holder-output");
        reader.setDaemon(true);
        reader.start();
        String said;
        try {
            said = holding.get(60, TimeUnit.SECONDS);
        }
        catch (ExecutionException | TimeoutException ex) {
            said = null;
        }
        if (!(InFlightHolder.HOLDING + " " + permits.length + " leases").equals(said)) {
            holder.destroyForcibly().waitFor();
            throw new IllegalStateException("The holder JVM did not take its leases: " + output);
        }
        return holder;
    }

    /** Until every lease of the limiter has a later end than now: the holder renewed each. */
    private void awaitRenewals(RedisEndpoint redis) throws InterruptedException {
        String leases = LimiterNaming.permitsKey(name);
        try (RespClient cli = redis.cli()) {
            Map<Object, Object> first = scores(cli.list("ZRANGE", leases, "0", "-1", "WITHSCORES"));
            for (int i = 0; i < 1_000; i++) {
                Map<Object, Object> now = scores(cli.list("ZRANGE", leases, "0", "-1", "WITHSCORES"));
                if (first.entrySet().stream().noneMatch(lease -> lease.getValue().equals(now.get(lease.getKey())))) {
                    return;
                }
                Thread.sleep(5);
            }
        }
    }

    private static Map<Object, Object> scores(List<Object> membersAndScores) {
        Map<Object, Object> scores = new HashMap<>();
        for (int i = 0; i < membersAndScores.size(); i += 2) {
            scores.put(membersAndScores.get(i), membersAndScores.get(i + 1));
        }
        return scores;
    }

    private static long redisMicros(RedisEndpoint redis) {
        try (RespClient cli = redis.cli()) {
            List<Object> time = cli.list("TIME");
            return Long.parseLong(time.get(0).toString()) * 1_000_000 + Long.parseLong(time.get(1).toString());
        }
    }

    private static String testClassPath() {
        String surefire = System.getProperty("surefire.test.class.path");
        return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    }
}
