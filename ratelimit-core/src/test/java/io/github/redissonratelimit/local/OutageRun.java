package io.github.redissonratelimit.local;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.redisson.api.RedissonClient;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.client.protocol.ScoredEntry;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Completions;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.local.TwoInstances.Answer;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.redis.BackendOptions;
import io.github.redissonratelimit.redis.InMemoryGrantWriter;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.redis.membership.InstanceHeartbeat;
import io.github.redissonratelimit.resilience.ResilientRateLimitBackend;

/**
 * Two instances deciding per-user and global limits under the {@code LOCAL} policy, called without blocking (a stall
 * does not slow the load down): every 10 ms two calls of random users and one global call, each key's calls taking
 * turns on the two instances.
 * Counts each key's grants in any window twice: by the callers' log (the grants whose calls all started and ended
 * within less than the interval on this JVM's monotonic clock, see {@link CallerLog}), and by Redis's clock (every
 * grant seen in the limiter's grants ZSET, by its score, read every 300 ms).
 */
final class OutageRun implements AutoCloseable {

    static final int USERS = 40;
    static final LimitSpec USER = new LimitSpec(5, Duration.ofSeconds(2), RateLimitMode.OVERALL);
    static final LimitSpec GLOBAL = new LimitSpec(60, Duration.ofSeconds(2), RateLimitMode.OVERALL);
    private static final Duration DEADLINE = Duration.ofMillis(200);
    /** How long the last calls are given to complete: the deadline, and scheduling on a loaded machine. */
    private static final Duration CALL_SLACK = DEADLINE.plus(Duration.ofMillis(50));
    private static final Duration TICK = Duration.ofMillis(10);

    /** One key's most grants in any window, by each count, against the bound (1.1 x its rate). */
    record Count(String key, long rate, int byCallers, int byRedis, int bound, String worst) {
        @Override
        public String toString() {
            return String.format("%s: most in a window %d by the callers' log, %d by Redis's clock, of %d (bound %d) %s",
                    key, byCallers, byRedis, rate, bound, worst);
        }
    }

    private final LimiterNaming naming = new LimiterNaming();
    private final List<RedissonClient> clients = new ArrayList<>();
    private final List<InstanceHeartbeat> heartbeats = new ArrayList<>();
    private final List<LocalFallback> fallbacks = new ArrayList<>();
    private final List<LocalOutagePolicy> stacks = new ArrayList<>();
    private final RedissonClient observer;
    private final ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<CallerLog.Grant> grants = new ConcurrentLinkedQueue<>();
    private final Map<String, Integer> errors = new ConcurrentHashMap<>();
    /** Per limiter name, every grant seen in its ZSET: member (hex) to [score ms, permits]. */
    private final Map<String, Map<String, long[]>> seen = new ConcurrentHashMap<>();
    private final long start = System.nanoTime();
    /** The ids of the grants made in memory and written to Redis. */
    private final java.util.Set<String> writtenIds = ConcurrentHashMap.newKeySet();
    /** Redis's clock (ms) when this run started. */
    private final long redisStartMillis;
    /** Until when (Redis's clock, ms) the grants ZSETs count. */
    private volatile long redisCountUntil = Long.MAX_VALUE;
    private long lastObserved;
    /** Per user (and the global key last), how many calls it made: each key's calls alternate between the instances. */
    private final int[] turns = new int[USERS + 1];

    OutageRun(Supplier<RedissonClient> newClient, boolean writeBack) {
        for (int i = 0; i < 2; i++) {
            RedissonClient client = newClient.get();
            clients.add(client);
            InstanceHeartbeat heartbeat = new InstanceHeartbeat(client, naming, Duration.ofMillis(200), 0);
            heartbeat.start(Duration.ofSeconds(5));
            heartbeats.add(heartbeat);
            LocalFallback fallback = new LocalFallback(heartbeat, 10_000);
            if (writeBack) {
                InMemoryGrantWriter writer = new InMemoryGrantWriter(client, BackendOptions.DEFAULTS);
                fallback.writeBackTo((name, spec, grants) -> {
                    grants.forEach(grant -> writtenIds.add(grant.id()));
                    return writer.write(name, spec, grants);
                });
            }
            heartbeat.reportInMemoryGrants(fallback::millisSinceLastLocalGrant);
            fallbacks.add(fallback);
            stacks.add(new LocalOutagePolicy(new ResilientRateLimitBackend(new RedissonRateLimitBackend(client),
                    DEADLINE, 3, Duration.ofMillis(300)), fallback));
        }
        observer = newClient.get();
        List<Object> time = observer.getScript(org.redisson.client.codec.StringCodec.INSTANCE).eval(org.redisson.api.RScript.Mode.READ_ONLY,
                "return redis.call('TIME')", java.util.Arrays.stream(org.redisson.api.RScript.ReturnType.values())
                        .filter(type -> type.name().equals("LIST") || type.name().equals("MULTI")).findFirst().orElseThrow());
        redisStartMillis = Long.parseLong(String.valueOf(time.get(0))) * 1000
                + Long.parseLong(String.valueOf(time.get(1))) / 1000 - (System.nanoTime() - start) / 1_000_000;
    }

    void awaitBothCounted() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (heartbeats.stream().anyMatch(beat -> beat.instances() != 2)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the heartbeats count " + heartbeats.stream().map(InstanceHeartbeat::instances).toList());
            }
            Thread.sleep(50);
        }
    }

    /**
     * Grants made from now on are counted by the callers' log only: after a failover the new master lacks the grants
     * the old one had not replicated yet, and grants Redis holds twice would count twice.
     */
    void stopCountingByRedis() {
        redisCountUntil = redisStartMillis + elapsedMillis();
    }

    long elapsedMillis() {
        return (System.nanoTime() - start) / 1_000_000;
    }

    /** Calls for {@code duration}, and reads the grants ZSETs every 300 ms. */
    void driveFor(Duration duration) throws InterruptedException {
        long until = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() < until) {
            long tick = System.nanoTime();
            ThreadLocalRandom random = ThreadLocalRandom.current();
            for (int i = 0; i < 2; i++) {
                int user = random.nextInt(USERS);
                call(turns[user]++ % 2, "user:u" + user, USER);
            }
            call(turns[USERS]++ % 2, "global", GLOBAL);
            if (tick - lastObserved > TimeUnit.MILLISECONDS.toNanos(300)) {
                lastObserved = tick;
                observe();
            }
            long rest = TICK.toNanos() - (System.nanoTime() - tick);
            if (rest > 0) {
                TimeUnit.NANOSECONDS.sleep(rest);
            }
        }
    }

    private void call(int instance, String key, LimitSpec spec) {
        long called = System.nanoTime();
        AcquireRequest request = new AcquireRequest(naming.limiterName(key), spec, 1, BackendErrorPolicy.LOCAL, false,
                Duration.ZERO);
        stacks.get(instance).acquire(request).whenComplete((decision, ex) -> {
            if (ex != null) {
                errors.merge(Completions.unwrap(ex).getClass().getSimpleName(), 1, Integer::sum);
                return;
            }
            long answered = System.nanoTime();
            String result = decision.local() ? "local" : "redis";
            answers.add(new Answer((called + answered) / 2, key, decision.allowed(), instance, result));
            if (decision.allowed()) {
                grants.add(new CallerLog.Grant(key, called, answered, instance, result));
            }
        });
    }

    /** Reads every key's grants (skipped when Redis does not answer: the next read sees what is still in the window). */
    private void observe() {
        List<String> keys = new ArrayList<>();
        for (int u = 0; u < USERS; u++) {
            keys.add("user:u" + u);
        }
        keys.add("global");
        for (String key : keys) {
            try {
                for (ScoredEntry<Object> entry : observer.getScoredSortedSet(LimiterNaming.permitsKey(naming.limiterName(key)),
                        ByteArrayCodec.INSTANCE).entryRangeAsync(0, -1).get(200, TimeUnit.MILLISECONDS)) {
                    byte[] member = (byte[]) entry.getValue();
                    int idLength = member[0] & 0xff;
                    String id = new String(member, 1, idLength, java.nio.charset.StandardCharsets.ISO_8859_1);
                    if (id.startsWith("held:")) {
                        continue; // stands for grants lost in the failover, already seen before it
                    }
                    long permits = (member[1 + idLength] & 0xffL) | (member[2 + idLength] & 0xffL) << 8
                            | (member[3 + idLength] & 0xffL) << 16 | (member[4 + idLength] & 0xffL) << 24;
                    // a grant written back again after a slow write is placed nearer its time: Redis keeps that
                    seen.computeIfAbsent(key, k -> new ConcurrentHashMap<>()).merge(id,
                            new long[] {entry.getScore().longValue(), permits},
                            (before, now) -> now[0] < before[0] ? new long[] {now[0], before[1]} : before);
                }
            }
            catch (Exception ex) {
                return;
            }
        }
    }

    List<Count> counts() throws InterruptedException {
        Thread.sleep(CALL_SLACK.toMillis() * 2); // the last calls complete
        observe();
        Map<String, List<Answer>> byKey = new TreeMap<>();
        answers.stream().sorted(Comparator.comparingLong(Answer::nanos))
                .forEach(answer -> byKey.computeIfAbsent(answer.key(), key -> new ArrayList<>()).add(answer));
        List<Count> counts = new ArrayList<>();
        byKey.forEach((key, keyAnswers) -> {
            LimitSpec spec = key.equals("global") ? GLOBAL : USER;
            CallerLog.Most byCallers = CallerLog.most(grants.stream().filter(grant -> grant.key().equals(key)).toList(),
                    spec.interval().toNanos(), start);
            int byRedis = maxByScore(grantedToCallers(key, keyAnswers), spec);
            counts.add(new Count(key, spec.rate(), byCallers.count(), byRedis, (int) Math.floor(spec.rate() * 1.1),
                    byCallers.worst() + worstByScore));
        });
        return counts;
    }

    /** The most permits of grants whose scores lie within one interval of each other. */
    private String worstByScore = "";

    /**
     * The grants of the key's ZSET that callers got, as [score, permits]: each grant Redis decided matched with a
     * caller's grant from Redis (its midpoint on Redis's clock) within 150 ms of its score, each grant written back
     * with as many callers' grants made in memory from 1.2 s before its score (a write sent during a stall runs when
     * it ends) to 150 ms after. The others Redis made for calls that had given up (the deadline passed while Redis
     * was stalled) when it ran them after the stall: held, yet granted to no one.
     */
    private List<long[]> grantedToCallers(String key, List<Answer> answers) {
        long[] fromRedis = callerMillis(answers, "redis");
        long[] inMemory = callerMillis(answers, "local");
        boolean[] redisMatched = new boolean[fromRedis.length];
        boolean[] memoryMatched = new boolean[inMemory.length];
        List<Map.Entry<String, long[]>> grants = new ArrayList<>(seen.getOrDefault(key, Map.of()).entrySet());
        grants.sort(Comparator.comparingLong(grant -> grant.getValue()[0]));
        List<long[]> granted = new ArrayList<>();
        for (Map.Entry<String, long[]> entry : grants) {
            long[] grant = entry.getValue();
            if (grant[0] >= redisCountUntil) {
                break;
            }
            boolean written = writtenIds.contains(entry.getKey());
            int found = written ? match(inMemory, memoryMatched, grant, 1_200) : match(fromRedis, redisMatched, grant, 150);
            if (found > 0) {
                granted.add(new long[] {grant[0], found});
            }
        }
        return granted;
    }

    private long[] callerMillis(List<Answer> answers, String result) {
        return answers.stream().filter(answer -> answer.granted() && answer.result().equals(result))
                .mapToLong(answer -> redisStartMillis + (answer.nanos() - start) / 1_000_000).sorted().toArray();
    }

    private static int match(long[] callers, boolean[] matched, long[] grant, long before) {
        int found = 0;
        for (int i = 0; i < callers.length && found < grant[1]; i++) {
            if (!matched[i] && callers[i] >= grant[0] - before && callers[i] <= grant[0] + 150) {
                matched[i] = true;
                found++;
            }
        }
        return found;
    }

    private int maxByScore(List<long[]> grants, LimitSpec spec) {
        long most = 0;
        long sum = 0;
        int first = 0;
        for (long[] grant : grants) {
            sum += grant[1];
            while (grant[0] - grants.get(first)[0] >= spec.interval().toMillis()) {
                sum -= grants.get(first++)[1];
            }
            if (sum > most) {
                most = sum;
                StringBuilder text = new StringBuilder(" redis window from " + (grants.get(first)[0] - redisStartMillis) + " ms:");
                for (int k = first; k <= grants.indexOf(grant); k++) {
                    text.append(" +").append(grants.get(k)[0] - grants.get(first)[0]).append('x').append(grants.get(k)[1]);
                }
                worstByScore = text.toString();
            }
        }
        return (int) most;
    }

    void report(String scenario, List<Count> counts) {
        long localAllowed = localAllowed();
        System.out.printf("[outage-bound] %s; in memory %d allowed / %d rejected, %d written back to Redis; errors %s%n",
                scenario, localAllowed, fallbacks.stream().mapToLong(LocalFallback::getRejectedCount).sum(),
                writtenBack(), errors);
        counts.stream().sorted(Comparator.comparingInt(Count::byCallers).reversed()).limit(6)
                .forEach(count -> System.out.println("[outage-bound]   " + count));
        counts.stream().filter(count -> count.key().equals("global"))
                .forEach(count -> System.out.println("[outage-bound]   " + count));
        System.out.println("[outage-bound]   shares of a user limit: " + fallbacks.stream().map(fallback -> fallback.shareOf(USER)).toList()
                + ", ranks " + heartbeats.stream().map(InstanceHeartbeat::rank).toList());
        long over = counts.stream().filter(count -> count.byCallers() > count.bound() || count.byRedis() > count.bound())
                .count();
        System.out.println("[outage-bound]   keys over the bound (by either count): " + over + " of " + counts.size());
    }

    Map<String, Integer> errors() {
        return errors;
    }

    long localAllowed() {
        return fallbacks.stream().mapToLong(LocalFallback::getAllowedCount).sum();
    }

    long writtenBack() {
        return fallbacks.stream().mapToLong(LocalFallback::getWrittenBackCount).sum();
    }

    @Override
    public void close() {
        heartbeats.forEach(InstanceHeartbeat::close);
        clients.forEach(RedissonClient::shutdown);
        observer.shutdown();
    }
}
