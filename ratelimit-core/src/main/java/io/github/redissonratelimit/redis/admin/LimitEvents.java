package io.github.redissonratelimit.redis.admin;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.api.listener.StatusListener;
import org.redisson.client.codec.StringCodec;

import io.github.redissonratelimit.admin.RateLimiters;
import io.github.redissonratelimit.log.LogSafe;
import io.github.redissonratelimit.limiter.LimiterMemory;
import io.github.redissonratelimit.naming.LimiterNaming;

/**
 * The writes of {@link RateLimiters}, told to every instance on the topic {@code <prefix>%events}: each drops what
 * it remembers of the limiters concerned or re-reads the overrides, then confirms on the same topic.
 *
 * <p>A message is {@code <id> <verb>} and one argument a line; a reset's arguments say which limiters to forget:
 * {@code =<limiter name>}, {@code ^<limiter name prefix>} or {@code *} for all.
 */
final class LimitEvents {

    static final String RESET = "reset";
    static final String OVERRIDES = "overrides";
    private static final String CONFIRM = "ack";

    private static final Log logger = LogFactory.getLog(RateLimiters.class);

    private static final Duration CONFIRMATION_TIMEOUT = Duration.ofSeconds(1);

    private final String channel;
    private final RTopic topic;
    private final LimiterMemory memory;
    private final StoredOverrides overrides;
    private final Map<String, Confirmations> pending = new ConcurrentHashMap<>();
    private volatile Integer listenerId;
    private volatile Integer statusListenerId;

    LimitEvents(RedissonClient redisson, LimiterNaming naming, LimiterMemory memory, StoredOverrides overrides) {
        this.channel = naming.prefix() + "%events";
        this.topic = redisson.getTopic(channel, StringCodec.INSTANCE);
        this.memory = memory;
        this.overrides = overrides;
    }

    String channel() {
        return channel;
    }

    /** Listens to the events of every instance (this one too). */
    void subscribe() {
        listenerId = topic.addListener(String.class, (channel, message) -> onMessage(message));
        statusListenerId = topic.addListener(new Resubscriptions());
    }

    void unsubscribe() {
        Integer id = listenerId;
        Integer statusId = statusListenerId;
        if (id != null) {
            listenerId = null;
            statusListenerId = null;
            try {
                topic.removeListener(statusId != null ? new Integer[] { id, statusId } : new Integer[] { id });
            }
            catch (RuntimeException ex) {
                logger.debug("Could not unsubscribe from " + channel, ex);
            }
        }
    }

    /**
     * Tells every instance (this one too), and waits up to one second for those that received it to confirm.
     * @return how many confirmed
     */
    int broadcast(String verb, List<String> arguments) {
        String id = UUID.randomUUID().toString();
        Confirmations confirmations = new Confirmations();
        pending.put(id, confirmations);
        try {
            StringBuilder message = new StringBuilder(id).append(' ').append(verb);
            arguments.forEach(argument -> message.append('\n').append(argument));
            long receivers = topic.publish(message.toString());
            int confirmed = confirmations.await(receivers, CONFIRMATION_TIMEOUT);
            if (confirmed < receivers) {
                logger.warn(confirmed + " of " + receivers + " instance(s) confirmed the rate limit " + verb
                        + " within " + CONFIRMATION_TIMEOUT.toMillis() + " ms; the others apply it when it reaches them");
            }
            return confirmed;
        }
        finally {
            pending.remove(id);
        }
    }

    /** An event of any instance, on one of Redisson's threads: applied without blocking, then confirmed. */
    private void onMessage(String message) {
        int space = message.indexOf(' ');
        if (space < 0) {
            return;
        }
        String id = message.substring(0, space);
        String[] lines = message.substring(space + 1).split("\n");
        try {
            switch (lines[0]) {
                case CONFIRM -> {
                    Confirmations confirmations = pending.get(id);
                    if (confirmations != null) {
                        confirmations.confirm();
                    }
                }
                case RESET -> {
                    memory.forget(matcher(lines));
                    confirm(id);
                }
                case OVERRIDES -> overrides.reload().whenComplete((done, ex) -> {
                    if (ex != null) {
                        logger.warn("Could not read the rate limit overrides from Redis", ex);
                    }
                    else {
                        confirm(id);
                    }
                });
                default -> logger.debug("Ignoring rate limit event " + LogSafe.text(message));
            }
        }
        catch (RuntimeException ex) {
            logger.warn("Could not apply rate limit event " + LogSafe.text(message), ex);
        }
    }

    private static Predicate<String> matcher(String[] lines) {
        Set<String> exact = new HashSet<>();
        List<String> prefixes = new ArrayList<>();
        boolean all = false;
        for (int i = 1; i < lines.length; i++) {
            String line = lines[i];
            if (line.equals("*")) {
                all = true;
            }
            else if (line.startsWith("=")) {
                exact.add(line.substring(1));
            }
            else if (line.startsWith("^")) {
                prefixes.add(line.substring(1));
            }
        }
        boolean every = all;
        return limiterName -> every || exact.contains(limiterName) || prefixes.stream().anyMatch(limiterName::startsWith);
    }

    private void confirm(String id) {
        topic.publishAsync(id + " " + CONFIRM);
    }

    /**
     * Re-reads the overrides whenever the subscription is established again (Redisson resubscribes after a lost
     * connection), so that an override published while this instance was cut off still reaches it.
     */
    private final class Resubscriptions implements StatusListener {

        @Override
        public void onSubscribe(String channel) {
            overrides.reload().whenComplete((done, ex) -> {
                if (ex != null) {
                    logger.warn("Could not read the rate limit overrides from Redis after resubscribing", ex);
                }
            });
        }

        @Override
        public void onUnsubscribe(String channel) {
        }
    }

    /** Confirmations of one event. */
    private static final class Confirmations {

        private int count;

        synchronized void confirm() {
            count++;
            notifyAll();
        }

        synchronized int await(long expected, Duration timeout) {
            long deadline = System.nanoTime() + timeout.toNanos();
            long left = timeout.toNanos();
            while (count < expected && left > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    break;
                }
                left = deadline - System.nanoTime();
            }
            return count;
        }
    }
}
