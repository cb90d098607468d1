package io.github.redissonratelimit.redis;

import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.limiter.AcquireBatch;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Completions;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.LimitState;
import io.github.redissonratelimit.limiter.LimiterMemory;
import io.github.redissonratelimit.limiter.MasterLocator;
import io.github.redissonratelimit.limiter.RateLimitBackend;

/**
 * A {@link RateLimitBackend} on Redis, in the data model of Redisson's {@link RRateLimiter} (its config hash,
 * free-permits counter and grants ZSET), through the project's own scripts ({@link LuaScripts}).
 *
 * <p>A decision is one script call, allowed or rejected, whether or not the limiter existed: the script
 * writes the declared config when none is stored, and the first time this JVM sees a limiter name (or sees it
 * declared with another spec, e.g. under a runtime override) it also compares the stored config with the
 * declared one and applies the {@link ConfigChangePolicy}. The reply carries the permits left, so rate limit
 * headers cost nothing more. Concurrent decisions share pipelines ({@link AcquirePipeline}); the limits of one call
 * asked together ({@link #acquireAll}) are decided in one script call
 * when their keys may share one (always off a Redis Cluster; on one, when they hash to the same slot). Grants are stamped
 * with Redis's clock ({@code TIME} inside the script) unless {@link BackendOptions#clock()} says
 * {@link LimiterClock#CLIENT}.
 *
 * <p>Runs on Redisson 3.24.3 to 3.52.0 and 4.x ({@link RedissonCompatibility}); the constructor throws
 * {@link UnsupportedRedissonVersionException} for any other.
 *
 * <p>On a Redis Cluster it knows which master holds each limiter ({@link MasterLocator}): each master gets its own
 * pipelines, and {@link io.github.redissonratelimit.resilience.ResilientRateLimitBackend} its own circuit breaker.
 *
 * <p>The operations send their commands without blocking: their results complete on Redisson's event loop
 * threads.
 */
public final class RedissonRateLimitBackend implements RateLimitBackend, MasterLocator, LimiterMemory {

    private static final Log logger = LogFactory.getLog(RedissonRateLimitBackend.class);

    private final RedissonClient redisson;
    private final BackendOptions options;
    private final AcquireScript script;
    /** The config each limiter was last checked against in Redis; another one (e.g. another tier) is checked again. */
    private final Cache<String, LimitSpec> checked;
    private final AcquirePipeline pipeline;
    /** Null unless Redisson is in cluster mode. */
    private final ClusterMasters clusterMasters;
    private final Set<String> reportedChanges = ConcurrentHashMap.newKeySet();
    private final LeaseRenewals leases = new LeaseRenewals(lease -> giveBack(lease.limiterName(), lease.spec(),
            lease.permits(), lease.receipt(), true), this::clientStopped);

    public RedissonRateLimitBackend(RedissonClient redisson) {
        this(redisson, BackendOptions.DEFAULTS);
    }

    public RedissonRateLimitBackend(RedissonClient redisson, BackendOptions options) {
        this(redisson, options, InstantSource.system());
    }

    /**
     * @param clientClock the clock that stamps grants with {@link LimiterClock#CLIENT} (unused with Redis's
     * clock); tests give each instance a skewed one
     */
    public RedissonRateLimitBackend(RedissonClient redisson, BackendOptions options, InstantSource clientClock) {
        RedissonCompatibility.check();
        this.redisson = redisson;
        this.options = options;
        this.script = new AcquireScript(redisson.getId(), options, clientClock);
        // eviction upkeep on the writing thread: handing it to the common pool woke a thread per new limiter, which
        // cost more CPU than the upkeep itself when every decision is a limiter's first
        this.checked = Caffeine.newBuilder().maximumSize(options.knownLimiters()).executor(Runnable::run).build();
        this.clusterMasters = ClusterMasters.of(redisson);
        this.pipeline = new AcquirePipeline(redisson, script, options.pipelineInFlight(), options.pipelineBatchSize(),
                this::masterOf, clusterMasters != null);
    }

    public BackendOptions getOptions() {
        return options;
    }

    /**
     * Takes the permits without blocking. Cancelling the returned future cancels the Redis command it waits
     * for: a decision still queued for a pipeline is never sent, and Redisson stops retrying a sent one where
     * it links cancellation to its retries. Redisson 4.7 does not for script calls while its script cache is
     * on (its default): such a call may still reach Redis once Redis is back (see {@code docs/operations.md}).
     */
    @Override
    public CompletableFuture<Decision> acquire(AcquireRequest request) {
        if (clusterMasters != null && !clusterMasters.firstMap().isDone()) {
            return clusterMasters.firstMap().thenCompose(ignored -> decide(request));
        }
        return decide(request);
    }

    @Override
    public CompletableFuture<Decision> acquire(String limiterName, LimitSpec spec, long permits) {
        return acquire(AcquireRequest.of(limiterName, spec, permits));
    }

    /**
     * Decides the limits of one call: those whose keys may share a script call (all of them off a Redis Cluster;
     * on one, those of one slot) in one script call, each as {@link #acquire} would decide it. Cancelling a
     * returned future cancels that decision as {@link #acquire}'s does.
     */
    @Override
    public List<CompletionStage<Decision>> acquireAll(List<AcquireRequest> requests) {
        if (requests.size() < 2 || (clusterMasters != null && !clusterMasters.firstMap().isDone())) {
            return AcquireBatch.oneByOne(this, requests);
        }
        List<AcquireCall> calls = new ArrayList<>(requests.size());
        List<CompletionStage<Decision>> decisions = new ArrayList<>(requests.size());
        for (AcquireRequest request : requests) {
            AcquireCall call = call(request);
            calls.add(call);
            decisions.add(decision(call));
        }
        pipeline.acquireTogether(calls);
        return decisions;
    }

    private CompletableFuture<Decision> decide(AcquireRequest request) {
        AcquireCall call = call(request);
        pipeline.acquire(call);
        return decision(call);
    }

    private AcquireCall call(AcquireRequest request) {
        String limiterName = request.limiterName();
        LimitSpec spec = request.spec();
        // a spec other than the one checked last (another tier, a limit overridden at runtime) is checked again, so
        // that the script applies the change under ratelimit.on-config-change as it does for a redeployed limit
        boolean firstSight = !spec.equals(checked.getIfPresent(limiterName));
        AcquireScript.ConfigCheck check = firstSight ? AcquireScript.ConfigCheck.of(options.onConfigChange())
                : AcquireScript.ConfigCheck.NONE;
        AcquireRequest.Lease lease = request.lease() != null && request.lease().permits() > request.permits()
                && spec.algorithm().leases() ? request.lease() : null;
        return new AcquireCall(limiterName, request.permits(), spec, check, request.waiter(), lease,
                new CompletableFuture<>());
    }

    /**
     * The call's decision once Redis answered; cancelling it cancels the call. A held grant (an in-flight limit's)
     * that Redis made for a decision cancelled meanwhile is given back: no call holds it.
     */
    private CompletableFuture<Decision> decision(AcquireCall call) {
        CompletableFuture<AcquireScript.Reply> reply = call.result();
        boolean firstSight = call.check() != AcquireScript.ConfigCheck.NONE;
        AtomicBoolean abandoned = new AtomicBoolean();
        AtomicReference<LeaseRenewals.Lease> heldLease = new AtomicReference<>();
        CompletableFuture<Decision> decision = reply.handle((answer, ex) -> {
            if (ex != null) {
                if (clusterMasters != null) {
                    clusterMasters.onFailure();
                }
                throw new CompletionException(Completions.unwrap(ex));
            }
            if (firstSight) {
                checked.put(call.limiterName(), call.spec());
                if (answer.storedBefore() != null) {
                    report(call.limiterName(), answer.storedBefore(), StoredConfig.declared(call.spec(), options),
                            options.onConfigChange());
                }
            }
            Decision decided = answer.decision(call.lease() != null, call.permits(), call.spec().algorithm());
            if (call.spec().algorithm().held()) {
                if (!decided.allowed()) {
                    // a held permit comes back when a call ends: no time is known (nor remembered by this JVM)
                    return Decision.reject(Duration.ZERO, decided.state());
                }
                if (decided.receipt() != null) {
                    LeaseRenewals.Lease lease = new LeaseRenewals.Lease(call.limiterName(), call.spec(),
                            call.permits(), decided.receipt());
                    leases.hold(lease);
                    heldLease.set(lease);
                    if (abandoned.get()) {
                        abandon(heldLease);
                    }
                }
            }
            return decided;
        });
        decision.whenComplete((ignored, ex) -> {
            if (decision.isCancelled()) {
                reply.cancel(false);
                abandoned.set(true);
                abandon(heldLease);
            }
        });
        return decision;
    }

    /** Gives back the lease of a grant whose decision was cancelled, once (the reply and the cancel may both try). */
    private void abandon(AtomicReference<LeaseRenewals.Lease> heldLease) {
        LeaseRenewals.Lease lease = heldLease.getAndSet(null);
        if (lease != null) {
            leases.end(lease);
            giveBack(lease.limiterName(), lease.spec(), lease.permits(), lease.receipt(), false);
        }
    }

    /** The Redis name of {@code logicalKey}'s limiter, by {@link BackendOptions#naming()}. */
    @Override
    public String limiterName(String logicalKey) {
        return options.naming().limiterName(logicalKey);
    }

    /** The master that holds {@code limiterName}'s keys: {@code host:port} on a Redis Cluster. */
    @Override
    public String masterOf(String limiterName) {
        return clusterMasters == null ? SINGLE_MASTER : clusterMasters.masterOf(limiterName);
    }

    @Override
    public Set<String> masters() {
        return clusterMasters == null ? Set.of(SINGLE_MASTER) : clusterMasters.masters();
    }

    /**
     * Forgets which of the limiters {@code limiterNames} accepts this JVM has compared with their stored config,
     * so that the next decision of each compares again (after a reset, whose keys are gone).
     */
    @Override
    public void forget(Predicate<String> limiterNames) {
        checked.asMap().keySet().removeIf(limiterNames);
    }

    /**
     * Gives back an unused grant of the request's permits, in one script call that keeps free + held = rate
     * (see {@code refund.lua} for why not {@code RRateLimiter.release}).
     * The stage fails with {@link IllegalArgumentException} for {@code permits <= 0} or more than the rate: no
     * grant holds such a count. (RRateLimiter's own release throws only for negative permits, does nothing for
     * 0, and caps the free permits at the rate.)
     */
    @Override
    public CompletionStage<Void> release(AcquireRequest request, Decision granted) {
        String limiterName = request.limiterName();
        LimitSpec spec = request.spec();
        long permits = request.permits();
        if (permits <= 0 || permits > spec.capacity()) {
            String most = "the " + spec.capacityName();
            return CompletableFuture.failedFuture(new IllegalArgumentException("Permits to give back must be between 1 "
                    + "and " + most + " (" + spec.capacity() + ") but were " + permits));
        }
        String receipt = granted == null ? null : granted.receipt();
        if (spec.algorithm().held() && receipt != null) {
            leases.end(new LeaseRenewals.Lease(limiterName, spec, permits, receipt));
        }
        return giveBack(limiterName, spec, permits, receipt, false).thenApply(refunded -> null);
    }

    /** A refund, or with {@code renew} the renewal of a held grant's lease: 1 when it was held, else 0. */
    private CompletionStage<Long> giveBack(String limiterName, LimitSpec spec, long permits, String receipt,
            boolean renew) {
        return LuaScripts.REFUND.<Long>eval(redisson.getScript(ScriptCodec.INSTANCE), limiterName,
                RScript.Mode.READ_WRITE, RedissonCompatibility.LONG, script.keys(limiterName),
                script.refundArguments(permits, spec, receipt, renew));
    }

    private boolean clientStopped() {
        return redisson.isShuttingDown() || redisson.isShutdown();
    }

    /** The leases of calls in flight this JVM holds and renews now. */
    public int heldLeases() {
        return leases.size();
    }

    /** Reads what the limiter holds now, as its next decision would see it; writes nothing. */
    @Override
    public CompletionStage<LimitState> state(String limiterName, LimitSpec spec) {
        return LuaScripts.STATE.<List<Object>>eval(redisson.getScript(ScriptCodec.INSTANCE), limiterName,
                RScript.Mode.READ_ONLY, RedissonCompatibility.LIST, script.keys(limiterName), script.stateArguments(spec))
                .thenApply(AcquireScript::state);
    }

    /**
     * Loads the backend's scripts into Redis's script cache (every master of a cluster), so that the first
     * decisions find them there instead of paying Redis's {@code NOSCRIPT} answer and a load each: for a warm
     * start, before an application takes traffic.
     */
    public static CompletionStage<Void> loadScripts(RedissonClient redisson) {
        RScript scripts = redisson.getScript(ScriptCodec.INSTANCE);
        return CompletableFuture.allOf(LuaScripts.all().stream()
                .map(script -> scripts.scriptLoadAsync(script.text()).toCompletableFuture())
                .toArray(CompletableFuture[]::new));
    }

    /** Logs a config change at INFO (WARN for KEEP) once per distinct change, then at DEBUG per limiter. */
    private void report(String limiterName, StoredConfig stored, StoredConfig declared, ConfigChangePolicy policy) {
        String message = switch (policy) {
            case UPDATE -> "Updated rate limiter '" + limiterName + "' from [" + stored + "] to [" + declared
                    + "], keeping the grants of the current window (ratelimit.on-config-change=update)";
            case RESET -> "Reset rate limiter '" + limiterName + "' from [" + stored + "] to [" + declared
                    + "] with a full bucket (ratelimit.on-config-change=reset)";
            case KEEP -> "Rate limiter '" + limiterName + "' keeps its stored config [" + stored
                    + "] although [" + declared + "] is declared (ratelimit.on-config-change=keep); set "
                    + "ratelimit.on-config-change=update or reset to apply the declared one";
        };
        boolean first = reportedChanges.size() < 1_000 && reportedChanges.add(stored + "->" + declared);
        if (first && policy == ConfigChangePolicy.KEEP) {
            logger.warn(message + " (further limiters with the same change are logged at DEBUG)");
        }
        else if (first) {
            logger.info(message + " (further limiters with the same change are logged at DEBUG)");
        }
        else if (logger.isDebugEnabled()) {
            logger.debug(message);
        }
    }
}
