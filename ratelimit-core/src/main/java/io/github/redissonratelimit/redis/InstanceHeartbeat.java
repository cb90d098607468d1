package io.github.redissonratelimit.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import io.github.redissonratelimit.local.InstanceCount;

/**
 * Counts the application instances that share the limits: each keeps a heartbeat in a Redis ZSET
 * ({@code ratelimit-instances:{<prefix>}}, stamped with Redis's clock) every {@code interval}, and counts as live
 * for three intervals after its last one. What the {@code local} outage policy divides each rate by is the last
 * count seen, so an outage keeps the count of just before it. Until the first answer the count is 1, or
 * {@code fixedInstances} when that is set (which then always wins; the heartbeat still gives the rank).
 */
public final class InstanceHeartbeat implements InstanceCount, AutoCloseable {

    private static final Log logger = LogFactory.getLog(InstanceHeartbeat.class);

    private final RedissonClient redisson;
    private final String key;
    private final String id;
    private final Duration interval;
    private final int fixedInstances;
    private final ScheduledExecutorService timer;
    private volatile ScheduledFuture<?> task;
    private volatile int instances = 1;
    private volatile int rank;
    private volatile boolean failing;
    /** Until when (nanoTime) answers may raise the count but not lower it: the others are beating again too. */
    private volatile long settlingUntil;
    private volatile boolean settling;

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
        this.id = redisson.getId();
        this.interval = interval;
        this.fixedInstances = fixedInstances;
        this.timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "ratelimit-heartbeat");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Beats now, then every interval; the first answer is awaited for at most {@code firstWait}. */
    public void start(Duration firstWait) {
        if (task == null) {
            task = timer.scheduleWithFixedDelay(this::beat, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
            try {
                send().toCompletableFuture().get(firstWait.toMillis(), TimeUnit.MILLISECONDS);
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
        try {
            send().toCompletableFuture().get(interval.toMillis() * 2, TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        catch (Exception ex) {
            settling = false;
            if (!failing) {
                failing = true;
                logger.debug("Rate limit heartbeat failed; keeping the last instance count (" + instances + ")", ex);
            }
        }
    }

    private CompletionStage<Void> send() {
        return redisson.getScript(StringCodec.INSTANCE).<List<Object>>evalAsync(key, RScript.Mode.READ_WRITE,
                LuaScripts.HEARTBEAT, RedissonCompatibility.LIST, List.of(key), id,
                String.valueOf(interval.toMillis() * 3)).thenAccept(this::apply);
    }

    /**
     * After an outage the other instances' heartbeats have aged out of the ZSET, and come back one by one: for three
     * intervals the count may only grow, or the first instance to reach Redis again would count itself alone and
     * take the whole rate while the grants made in memory during the outage are still in the window.
     */
    private void apply(List<Object> reply) {
        int live = Math.max(1, ((Number) reply.get(0)).intValue());
        int place = ((Number) reply.get(1)).intValue();
        long now = System.nanoTime();
        if (failing) {
            failing = false;
            settling = true;
            settlingUntil = now + interval.toNanos() * 3;
        }
        if (settling && now - settlingUntil < 0) {
            live = Math.max(live, instances);
        }
        else {
            settling = false;
        }
        if (live != instances && logger.isDebugEnabled()) {
            logger.debug("Rate limit instances sharing the limits: " + live);
        }
        instances = live;
        rank = place;
    }

    @Override
    public int instances() {
        return fixedInstances > 0 ? fixedInstances : instances;
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public String source() {
        return fixedInstances > 0 ? "ratelimit.local-fallback.instances" : "the heartbeat in Redis";
    }

    /** Stops beating and takes this instance out of the count at once (it would otherwise age out). */
    @Override
    public void close() {
        ScheduledFuture<?> running = task;
        if (running != null) {
            running.cancel(false);
        }
        timer.shutdownNow();
        try {
            redisson.getScoredSortedSet(key, StringCodec.INSTANCE).removeAsync(id);
        }
        catch (RuntimeException ex) {
            logger.debug("Could not remove this instance's heartbeat", ex);
        }
    }
}
