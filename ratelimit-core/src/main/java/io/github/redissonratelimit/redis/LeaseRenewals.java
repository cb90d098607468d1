package io.github.redissonratelimit.redis;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.log.LogSafe;

/**
 * Renews the leases this JVM holds for calls in flight (the grants of an algorithm whose grants are
 * {@linkplain io.github.redissonratelimit.algorithm.LimitAlgorithm#held() held}) a third of a lease period apart,
 * from the grant until the call gives it back, so that a call of any length keeps its permits while one that nobody
 * renews (its instance killed or cut off from Redis) loses them one lease period after its last renewal, by
 * Redis's clock. A renewal that fails (Redis not answering) is tried again at the next turn; one that finds the
 * lease ended (it outlasted its period unrenewed, or the limiter was reset) stops, logged once per limiter; the leases
 * of a client that shut down are no longer renewed.
 */
final class LeaseRenewals {

    private static final Log logger = LogFactory.getLog(LeaseRenewals.class);

    /**
     * One thread for every backend of the JVM: it only sends renewals, whose replies come on Redisson's threads. A
     * renewal cancelled at its call's end leaves the queue at once, not at its due time (calls shorter than a third of
     * a lease period would otherwise pile up there).
     */
    private static final ScheduledExecutorService TIMER = timer();

    private static ScheduledExecutorService timer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "ratelimit-lease-renewal");
            thread.setDaemon(true);
            return thread;
        });
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }

    /** A held lease: its limiter, as declared, the permits and the receipt a renewal and the give-back name. */
    record Lease(String limiterName, LimitSpec spec, long permits, String receipt) {

        String id() {
            return limiterName + '\n' + receipt + '\n' + permits;
        }
    }

    private final Function<Lease, CompletionStage<Long>> renewal;
    private final BooleanSupplier stopped;
    private final Map<String, ScheduledFuture<?>> held = new ConcurrentHashMap<>();
    private final Set<String> reportedLosses = ConcurrentHashMap.newKeySet();

    /**
     * @param renewal sends one renewal: 1 when the lease was held and now ends a lease period later, 0 when ended
     * @param stopped whether the client that sends renewals stopped (shut down): its leases are then no longer
     *        renewed (they end one lease period after their last renewal, as an instance's that stopped)
     */
    LeaseRenewals(Function<Lease, CompletionStage<Long>> renewal, BooleanSupplier stopped) {
        this.renewal = renewal;
        this.stopped = stopped;
    }

    /** Renews {@code lease} from now until {@link #end}. */
    void hold(Lease lease) {
        long every = Math.max(1, lease.spec().interval().toMillis() / 3);
        held.put(lease.id(), TIMER.scheduleWithFixedDelay(() -> renew(lease), every, every, TimeUnit.MILLISECONDS));
    }

    /** Stops renewing {@code lease}: its call ended. */
    void end(Lease lease) {
        ScheduledFuture<?> renewing = held.remove(lease.id());
        if (renewing != null) {
            renewing.cancel(false);
        }
    }

    /** The leases held now. */
    int size() {
        return held.size();
    }

    private void renew(Lease lease) {
        if (stopped.getAsBoolean()) {
            end(lease);
            return;
        }
        CompletionStage<Long> renewed;
        try {
            renewed = renewal.apply(lease);
        }
        catch (RuntimeException ex) {
            return; // tried again at the next turn
        }
        renewed.whenComplete((answer, ex) -> {
            if (ex == null && answer != null && answer == 0L && held.containsKey(lease.id())) {
                end(lease);
                lost(lease);
            }
        });
    }

    private void lost(Lease lease) {
        if (reportedLosses.size() < 1_000 && reportedLosses.add(lease.limiterName())) {
            logger.warn(LogSafe.text("A call in flight on '" + lease.limiterName() + "' lost its lease (it went "
                    + "unrenewed for a lease period of " + Duration.ofMillis(lease.spec().interval().toMillis())
                    + ", or the limiter was reset): until the call ends, the limit may let one call more in flight "
                    + "(logged once per limiter)"));
        }
    }
}
