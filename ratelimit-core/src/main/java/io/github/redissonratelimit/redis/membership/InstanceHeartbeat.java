package io.github.redissonratelimit.redis.membership;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import io.github.redissonratelimit.local.InstanceCount;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.redis.LuaScripts;
import io.github.redissonratelimit.redis.RedissonCompatibility;

/**
 * Counts the application instances that share the limits: each keeps a heartbeat in a Redis ZSET
 * ({@code ratelimit-instances:{<prefix>}}, stamped with Redis's clock) every {@code interval}, and counts as live for three
 * intervals after its last one. What the {@code local} outage policy divides each rate by is the count held here,
 * which rises at once but falls only slowly: an instance that stops beating (closed or crashed) is still counted for
 * {@value #HOLD_INTERVALS} intervals, since it may only be unable to reach Redis, a pause of this JVM may have made
 * them all look gone, and counting too few lets each instance take too much of a rate (counting too many only makes
 * the shares of an outage smaller). An outage keeps the count of just before it, and the hold starts again when Redis
 * answers, or when an answer comes after a pause of this JVM (the others' heartbeats may have aged out meanwhile).
 * Until the first answer the count is 1, or {@code fixedInstances} when that is set (which then always wins;
 * the heartbeat still gives the rank).
 *
 * <p>An instance that stopped beating without leaving may be deciding in memory, unable to reach Redis: while one is
 * missing ({@value #HOLD_INTERVALS} intervals after its heartbeat aged out), {@link #othersDecidedInMemory} holds.
 * One that {@linkplain #close leaves} (its context closes, e.g. in a rolling deployment) says so, and tells its last
 * grant in memory if it made one: it is not taken for one deciding in memory, so the others keep the whole rate.
 */
public final class InstanceHeartbeat implements InstanceCount, AutoCloseable {

    private static final Log logger = LogFactory.getLog(InstanceHeartbeat.class);

    /** How many intervals an instance no longer beating is still counted. */
    static final int HOLD_INTERVALS = 10;

    /** How long an in-memory grant is told to the others: longer than any interval a limit has in practice. */
    static final Duration REPORTED_FOR = Duration.ofDays(1);

    private final RedissonClient redisson;
    private final String key;
    private final String inMemoryKey;
    private final String id;
    private final Duration interval;
    private final int fixedInstances;
    private final ScheduledExecutorService timer;
    private volatile ScheduledFuture<?> task;
    /** Set when this instance leaves (guarded by this): no heartbeat is sent after the one that takes it out. */
    private boolean closed;
    /** The last heartbeat sent (guarded by this): the leave waits for it, so that it cannot count this one again. */
    private CompletableFuture<Void> lastSent = CompletableFuture.completedFuture(null);
    private volatile int instances = 1;
    private volatile int rank;
    private volatile boolean failing;
    /** When (nanoTime) an answer last showed the held count, or Redis answered again after failing. */
    private volatile long heldSince;
    /** When (nanoTime) the last answer came; 0 before the first. */
    private volatile long lastAnswer;
    /** When (nanoTime) another instance last granted in memory, or may have: it was not beating. */
    private volatile long othersInMemoryAt;
    private volatile boolean othersInMemory;
    /** Milliseconds since this instance last granted in memory, -1 when it never did. */
    private volatile LongSupplier inMemoryGrantAge = () -> -1;

    /**
     * @param fixedInstances the instance count to use whatever the heartbeats say; 0 to count them
     */
    public InstanceHeartbeat(RedissonClient redisson, LimiterNaming naming, Duration interval, int fixedInstances) {
        if (interval.toMillis() < 1 || fixedInstances < 0) {
            throw new IllegalArgumentException("interval must be at least 1ms and fixedInstances >= 0 but were "
                    + interval + " and " + fixedInstances);
        }
        this.redisson = redisson;
        this.key = "ratelimit-instances:{" + naming.prefix() + "}";
        this.inMemoryKey = key + ":in-memory";
        this.id = redisson.getId();
        this.interval = interval;
        this.fixedInstances = fixedInstances;
        this.timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "ratelimit-heartbeat");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * What each heartbeat tells the others: the milliseconds since this instance last granted permits in memory
     * (under the local outage policy), or -1 when it never did.
     */
    public void reportInMemoryGrants(LongSupplier millisSinceLastGrant) {
        this.inMemoryGrantAge = millisSinceLastGrant;
    }

    /** Beats now, then every interval; the first answer is awaited for at most {@code firstWait}. */
    public void start(Duration firstWait) {
        if (task == null) {
            task = timer.scheduleWithFixedDelay(this::beat, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
            try {
                send(false).get(firstWait.toMillis(), TimeUnit.MILLISECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            catch (Exception ex) {
                logger.debug("No first heartbeat answer within " + firstWait + "; counting 1 instance until one comes", ex);
            }
        }
    }

    /** Sends one heartbeat and applies the answer (also what {@link #start} does every interval). */
    public void beat() {
        beat(interval.multipliedBy(2));
    }

    /** Like {@link #beat()}, waiting at most {@code wait} for the answer (it is applied when it comes anyway). */
    void beat(Duration wait) {
        try {
            send(false).get(wait.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        catch (Exception ex) {
            if (!failing) {
                failing = true;
                logger.debug("Rate limit heartbeat failed; keeping the last instance count (" + instances + ")", ex);
            }
        }
    }

    /** One heartbeat, or with {@code leaving} the one that takes this instance out; none other once closed. */
    private CompletableFuture<Void> send(boolean leaving) {
        long inMemoryAge = inMemoryGrantAge.getAsLong();
        synchronized (this) {
            if (closed && !leaving) {
                return CompletableFuture.completedFuture(null);
            }
            CompletionStage<List<Object>> reply = redisson.getScript(StringCodec.INSTANCE).evalAsync(key,
                    RScript.Mode.READ_WRITE, LuaScripts.heartbeatText(), RedissonCompatibility.LIST,
                    List.of(key, inMemoryKey), id, String.valueOf(interval.toMillis() * 3),
                    String.valueOf(inMemoryAge), String.valueOf(REPORTED_FOR.toMillis()),
                    String.valueOf(interval.toMillis() * (3 + HOLD_INTERVALS)), leaving ? "1" : "0");
            lastSent = reply.thenAccept(leaving ? left -> { } : this::apply).toCompletableFuture();
            return lastSent;
        }
    }

    /**
     * A higher count is taken at once, a lower one only after the held count was not seen for the hold: after an
     * outage the other instances' heartbeats have aged out of the ZSET and come back one by one, and the first
     * instance back must not count itself alone (it would take the whole rate while the grants made in memory during
     * the outage are still in the window).
     */
    private void apply(List<Object> reply) {
        int live = Math.max(1, ((Number) reply.get(0)).intValue());
        int place = ((Number) reply.get(1)).intValue();
        long now = System.nanoTime();
        boolean paused = false;
        if (failing) {
            failing = false;
            heldSince = now;
            othersInMemory(now); // they may not reach Redis yet
        }
        else if (lastAnswer != 0 && now - lastAnswer > interval.toNanos() * 3) {
            // no answer for longer than a heartbeat lives, yet none failed: this JVM paused (or its timer starved),
            // and the others' heartbeats may have aged out meanwhile, not the others
            heldSince = now;
            paused = true;
        }
        lastAnswer = now;
        int held = instances;
        if (live >= held || now - heldSince > interval.toNanos() * HOLD_INTERVALS) {
            if (live != held && logger.isDebugEnabled()) {
                logger.debug("Rate limit instances sharing the limits: " + live);
            }
            instances = live;
            heldSince = now;
        }
        else if (paused) {
            othersInMemory(now); // whether the ones held left or stopped beating is no longer known
        }
        if (reply.size() > 3 && ((Number) reply.get(3)).intValue() > 0) {
            othersInMemory(now); // one stopped beating without leaving: it may be deciding in memory
        }
        long othersAge = reply.size() > 2 ? ((Number) reply.get(2)).longValue() : -1;
        if (othersAge >= 0) {
            othersInMemory(now - TimeUnit.MILLISECONDS.toNanos(othersAge));
        }
        // while the count is held above the live instances, one not beating may rank where this one does now, and
        // both would take the larger share of an uneven split: this one takes the last rank's (the smallest)
        rank = live < instances ? instances - 1 : place;
    }

    private void othersInMemory(long at) {
        if (!othersInMemory || at - othersInMemoryAt > 0) {
            othersInMemoryAt = at;
            othersInMemory = true;
        }
    }

    @Override
    public int instances() {
        return fixedInstances > 0 ? fixedInstances : instances;
    }

    @Override
    public boolean othersDecidedInMemory() {
        return othersInMemory;
    }

    @Override
    public long othersInMemoryAt() {
        return othersInMemoryAt;
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public String source() {
        return fixedInstances > 0 ? "ratelimit.local-fallback.instances" : "the heartbeat in Redis";
    }

    /**
     * Stops beating and leaves: takes this instance out of the heartbeats at once (the others then know it did not
     * merely stop beating, see {@link #othersDecidedInMemory}), telling its last grant in memory if it made one.
     * Waits at most two intervals (and 2 s) in all for the heartbeat under way and for the leave. To be called
     * before the Redisson client shuts down (the auto-configuration's bean is closed first): once it left, nothing
     * this instance decides in memory is told to the others, e.g. the decisions of calls made after the client closed.
     */
    @Override
    public void close() {
        ScheduledFuture<?> running = task;
        if (running != null) {
            running.cancel(false);
        }
        timer.shutdownNow();
        long deadline = System.nanoTime() + Math.min(interval.toNanos() * 2, TimeUnit.SECONDS.toNanos(2));
        CompletableFuture<Void> underWay;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            underWay = lastSent;
        }
        try {
            // a heartbeat still under way could count this instance again after it left
            underWay.handle((done, ex) -> null).get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            send(true).get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        catch (Exception ex) {
            logger.debug("Could not take this instance out of the rate limit heartbeats; it ages out", ex);
        }
    }
}
