package io.github.redissonratelimit.redis;

import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;

import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import io.github.redissonratelimit.limiter.ReleaseSignals;

/**
 * {@link ReleaseSignals} from Redis: a limiter's give-backs publish the permits they return on the channel
 * {@code <limiter name>:released} ({@code in-flight.lua}); this JVM listens to the channel of each limiter it has
 * callers waiting on, from the first waiter until the last stops, and on each message wakes its waiters in the order
 * they began to wait: the first, then the next ones while the permits returned cover them.
 */
public final class ReleaseSubscriptions implements ReleaseSignals {

    private final RedissonClient redisson;
    private final Map<String, Waiters> byLimiter = new HashMap<>();
    private final AtomicLong order = new AtomicLong();

    public ReleaseSubscriptions(RedissonClient redisson) {
        this.redisson = redisson;
    }

    /** The channel the give-backs of {@code limiterName} publish on. */
    static String channel(String limiterName) {
        return limiterName + ":released";
    }

    @Override
    public Signal next(String limiterName, long permits, long arrival) {
        Waiter waiter = new Waiter(arrival, order.incrementAndGet(), permits, new CompletableFuture<>());
        Waiters waiters;
        synchronized (byLimiter) {
            waiters = byLimiter.computeIfAbsent(limiterName, this::listen);
            waiters.queue.add(waiter);
        }
        waiter.released.whenComplete((ignored, ex) -> leave(limiterName, waiters, waiter));
        CompletionStage<Void> listening = waiters.listening;
        return new Signal() {

            @Override
            public CompletionStage<Void> listening() {
                return listening;
            }

            @Override
            public CompletableFuture<Void> released() {
                return waiter.released;
            }
        };
    }

    private Waiters listen(String limiterName) {
        RTopic topic = redisson.getTopic(channel(limiterName), StringCodec.INSTANCE);
        Waiters waiters = new Waiters(topic);
        CompletableFuture<Integer> subscribed = topic.addListenerAsync(String.class,
                (channel, message) -> wake(waiters, message)).toCompletableFuture();
        waiters.listener = subscribed;
        waiters.listening = subscribed.handle((id, ex) -> null); // a failed subscription leaves the timer
        return waiters;
    }

    private void wake(Waiters waiters, String message) {
        long returned;
        try {
            returned = Long.parseLong(message);
        }
        catch (NumberFormatException ex) {
            returned = 1;
        }
        synchronized (byLimiter) {
            long covered = 0;
            for (Waiter next = waiters.queue.peek(); next != null; next = waiters.queue.peek()) {
                if (covered > 0 && covered + next.permits() > returned) {
                    break;
                }
                waiters.queue.poll();
                covered += next.permits();
                next.released().complete(null); // leave() runs after, and finds it gone from the queue
            }
        }
    }

    private void leave(String limiterName, Waiters waiters, Waiter waiter) {
        synchronized (byLimiter) {
            waiters.queue.remove(waiter);
            if (waiters.queue.isEmpty() && byLimiter.get(limiterName) == waiters) {
                byLimiter.remove(limiterName);
                waiters.listener.thenAccept(waiters.topic::removeListenerAsync);
            }
        }
    }

    /** Limiters with callers waiting on them now. */
    int limitersWaitedOn() {
        synchronized (byLimiter) {
            return byLimiter.size();
        }
    }

    private record Waiter(long arrival, long order, long permits, CompletableFuture<Void> released) {
    }

    private static final class Waiters {

        final RTopic topic;
        final PriorityQueue<Waiter> queue = new PriorityQueue<>(
                Comparator.comparingLong(Waiter::arrival).thenComparingLong(Waiter::order));
        CompletableFuture<Integer> listener;
        CompletionStage<Void> listening;

        Waiters(RTopic topic) {
            this.topic = topic;
        }
    }
}
