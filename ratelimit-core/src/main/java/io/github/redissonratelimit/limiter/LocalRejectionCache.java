package io.github.redissonratelimit.limiter;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Policy;

/**
 * Answers a flood from memory: once Redis has rejected a limiter for {@code P} permits and said when
 * they can be free, this JVM rejects further requests for that limiter for {@code P} or more permits
 * until then, without a round trip. Requests for fewer permits, other limiters and every request
 * after the deadline go to the delegate as before.
 *
 * <h2>Why no request is rejected that Redis would allow</h2>
 * RRateLimiter keeps the free permits in {@code {name}:value} and one ZSET member per grant, scored by
 * the time of the grant. A request is allowed when the free permits plus those of the grants older than
 * one interval cover it; between two calls the only thing that gives permits back is time passing over
 * a grant, and a new grant only takes more. The delegate's retry-after is the time until enough grants
 * have left the window, measured by the script's clock when it ran, after this call started: so until
 * {@code start + retryAfter} (this JVM's clock, read before the call) no call can find the permits,
 * whatever other callers do meanwhile. The deadline is a duration measured from before the call, so it
 * holds whichever clock the script reads (Redis's by default). A grant that took the last free permit says as
 * much: its answer carries the permits left (none) and the time until the oldest grant leaves the window, before
 * which no permit comes back, so requests for the limiter are rejected from memory until then too (in a flood, the
 * calls right after each allowed one no longer ask Redis).
 *
 * <p>What breaks that reasoning, and must not be combined with this cache for the same limiters:
 * {@code RRateLimiter.release(...)} (hands permits back early; {@link #forget(String)} clears this JVM's
 * entry, but not other instances'; the backend's own {@link #release}, which gives back only a grant of
 * the same call, forgets the entry too), {@code setRate}/{@code updateRate} without keeping state (resets the
 * permits), deleting the limiter's keys (except through {@code RateLimiters.reset}, which makes every instance
 * {@link #forget(Predicate) forget} the limiters it deletes), and a delegate whose retry-after
 * is not a lower bound of the real wait (wrap the Redis backend directly, not a decorator that invents
 * rejections, e.g. when Redis is down).
 *
 * <p>Memory is bounded: at most {@code maxEntries} limiters are remembered, each only until its deadline.
 */
public final class LocalRejectionCache implements DelegatingRateLimitBackend, LimiterMemory {

    private final RateLimitBackend delegate;
    private final Cache<String, Rejection> rejections;
    private final Policy<String, Rejection> policy;
    private final Clock clock;
    private final LongAdder localRejections = new LongAdder();

    /**
     * @param delegate the backend whose rejections carry the exact time until the permits can be free
     * @param maxEntries how many limiters are remembered at most (least recently used go first)
     */
    public LocalRejectionCache(RateLimitBackend delegate, long maxEntries) {
        this(delegate, maxEntries, Clock.systemUTC());
    }

    LocalRejectionCache(RateLimitBackend delegate, long maxEntries, Clock clock) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries must be at least 1 but was " + maxEntries);
        }
        this.delegate = delegate;
        this.clock = clock;
        this.rejections = Caffeine.newBuilder()
                .maximumSize(maxEntries)
                .expireAfter(new UntilDeadline(clock))
                .executor(Runnable::run) // upkeep on the caller: no thread woken per rejection in a flood of users
                .build();
        this.policy = rejections.policy();
    }

    /** A known rejection is answered at once; anything else goes to the delegate, whose rejections are remembered. */
    @Override
    public CompletionStage<Decision> acquire(AcquireRequest request) {
        long now = clock.millis();
        CompletionStage<Decision> known = knownRejection(request.limiterName(), request.spec(), request.permits(), now);
        return known != null ? known : remembering(delegate.acquire(request), request.limiterName(), request.spec(),
                request.permits(), now);
    }

    /** Like {@link #acquire}, each request in turn; those not known go to the delegate together. */
    @Override
    public List<CompletionStage<Decision>> acquireAll(List<AcquireRequest> requests) {
        long now = clock.millis();
        return AcquireBatch.decorate(requests, delegate, new AcquireBatch.Layer() {

            @Override
            public CompletionStage<Decision> answer(int index) {
                AcquireRequest request = requests.get(index);
                return knownRejection(request.limiterName(), request.spec(), request.permits(), now);
            }

            @Override
            public CompletionStage<Decision> after(int index, CompletionStage<Decision> asked) {
                AcquireRequest request = requests.get(index);
                return remembering(asked, request.limiterName(), request.spec(), request.permits(), now);
            }
        }, (request, index) -> { });
    }

    /** The rejection remembered for the request, answered from memory; null when Redis must be asked. */
    private CompletionStage<Decision> knownRejection(String limiterName, LimitSpec spec, long permits, long now) {
        // quietly: the lookup runs on every call, and entries live too briefly for read recency to matter
        Rejection known = policy.getIfPresentQuietly(limiterName);
        if (known != null && permits >= known.permits() && now < known.untilMillis() && spec.equals(known.spec())) {
            localRejections.increment();
            return CompletableFuture.completedFuture(Decision.reject(Duration.ofMillis(known.untilMillis() - now)));
        }
        return null;
    }

    /** The delegate's answer, its rejection (or a grant of the last permit) remembered from {@code now} on. */
    private CompletionStage<Decision> remembering(CompletionStage<Decision> asked, String limiterName, LimitSpec spec,
            long permits, long now) {
        return asked.thenApply(decision -> {
            if (!decision.allowed()) {
                remember(limiterName, spec, permits, now + decision.retryAfter().toMillis());
            }
            else if (tookTheLastPermit(decision)) {
                remember(limiterName, spec, 1, now + decision.state().nextPermitIn().toMillis());
            }
            return decision;
        });
    }

    /**
     * Gives the permits back through the delegate and forgets this JVM's rejection of the limiter, which
     * may now be too pessimistic (the cost: the next request for it asks Redis).
     */
    @Override
    public CompletionStage<Void> release(AcquireRequest request, Decision granted) {
        forget(request.limiterName());
        return delegate.release(request, granted);
    }


    /** An allowed decision that left no permit free (when the backend tells what is left). */
    private static boolean tookTheLastPermit(Decision decision) {
        LimitState left = decision.state();
        return left != null && left.available() <= 0 && !left.nextPermitIn().isZero();
    }

    private void remember(String limiterName, LimitSpec spec, long permits, long untilMillis) {
        if (untilMillis > clock.millis()) {
            rejections.put(limiterName, new Rejection(spec, permits, untilMillis));
        }
    }

    /**
     * Forgets what this JVM knows about {@code limiterName}, for when its permits were given back by
     * other means than time (e.g. {@code RRateLimiter.release}).
     */
    public void forget(String limiterName) {
        rejections.invalidate(limiterName);
    }

    /**
     * Forgets what this JVM knows about every limiter whose name {@code limiterNames} accepts, for when they were
     * reset or their limit changed ({@code RateLimiters.reset}, {@code RateLimiters.override}).
     */
    @Override
    public void forget(Predicate<String> limiterNames) {
        rejections.asMap().keySet().removeIf(limiterNames);
    }

    /** The backend asked when this cache does not know the answer. */
    @Override
    public RateLimitBackend getDelegate() {
        return delegate;
    }

    /** Requests rejected from memory since this cache was created. */
    public long localRejections() {
        return localRejections.sum();
    }

    /** Limiters currently known to be out of permits. */
    public long size() {
        rejections.cleanUp();
        return rejections.estimatedSize();
    }

    /**
     * Redis had fewer than {@code permits} free for the limiter under {@code spec} until {@code untilMillis} (wall
     * clock); a request under another spec (a changed limit, another tier) asks Redis.
     */
    private record Rejection(LimitSpec spec, long permits, long untilMillis) {
    }

    private record UntilDeadline(Clock clock) implements Expiry<String, Rejection> {

        @Override
        public long expireAfterCreate(String key, Rejection value, long currentTime) {
            return TimeUnit.MILLISECONDS.toNanos(Math.max(0, value.untilMillis() - clock.millis()));
        }

        @Override
        public long expireAfterUpdate(String key, Rejection value, long currentTime, long currentDuration) {
            return expireAfterCreate(key, value, currentTime);
        }

        @Override
        public long expireAfterRead(String key, Rejection value, long currentTime, long currentDuration) {
            return currentDuration;
        }
    }
}
