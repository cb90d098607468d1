package io.github.redissonratelimit.autoconfigure.actuate;

import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletionException;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;

import io.github.redissonratelimit.limiter.LimitState;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.operation.RateLimitOperation;
import io.github.redissonratelimit.operation.RateLimitOperationSource;
import io.github.redissonratelimit.redis.LimiterNaming;

/**
 * {@code /actuator/ratelimits}: every declared limit (method, key expression, rate, interval, mode, ...),
 * and {@code /actuator/ratelimits/{name}/{key}} the live state of one key of the limit called
 * {@code name} (its name or display name). For a limit without a key expression,
 * {@code /actuator/ratelimits/{name}} reads its one limiter. Reading the state costs one Redis round
 * trip and takes no permit.
 */
@Endpoint(id = "ratelimits")
public class RateLimitsEndpoint {

    private final RateLimitOperationSource operationSource;
    private final LimiterNaming naming;
    private final RateLimitBackend backend;

    public RateLimitsEndpoint(RateLimitOperationSource operationSource, LimiterNaming naming, RateLimitBackend backend) {
        this.operationSource = operationSource;
        this.naming = naming;
        this.backend = backend;
    }

    @ReadOperation
    public LimitsDescriptor limits() {
        return new LimitsDescriptor(operationSource.declaredLimits().operations().stream()
                .sorted(Comparator.comparing(RateLimitOperation::name).thenComparing(RateLimitOperation::method))
                .map(LimitDescriptor::of).toList());
    }

    /** @return null (404) when no declared limit has that name */
    @ReadOperation
    public LimitStateDescriptor limit(@Selector String name, @Selector(match = Match.ALL_REMAINING) String[] key) {
        List<RateLimitOperation> operations = operationSource.declaredLimits().named(name);
        if (operations.isEmpty()) {
            return null;
        }
        RateLimitOperation operation = operations.get(0);
        String logicalKey = key == null || key.length == 0 || (key.length == 1 && key[0].isEmpty()) ? null
                : String.join("/", key);
        if (logicalKey == null && operation.key() == null) {
            logicalKey = operation.name();
        }
        List<LimitDescriptor> declared = operations.stream().map(LimitDescriptor::of).toList();
        if (logicalKey == null) {
            return new LimitStateDescriptor(declared, null, null, null, null);
        }
        String limiterName = naming.limiterName(logicalKey);
        LimitState state;
        try {
            state = backend.state(limiterName, operation.spec()).toCompletableFuture().join();
        }
        catch (CompletionException ex) {
            throw ex.getCause() instanceof RuntimeException cause ? cause : ex;
        }
        return new LimitStateDescriptor(declared, logicalKey, limiterName, state.available(),
                state.nextPermitIn().toMillis());
    }

    /** The declared limits. */
    public record LimitsDescriptor(List<LimitDescriptor> limits) implements OperationResponseBody {
    }

    /**
     * One declared limit.
     * @param source where the values come from: {@code annotation}, {@code policy}, {@code defaults}, joined by {@code +}
     */
    public record LimitDescriptor(String name, String displayName, String method, String key, long rate,
            String interval, long intervalMillis, String mode, long permits, String waitTimeout, String fallback,
            String condition, String skipIf, String source) {

        static LimitDescriptor of(RateLimitOperation operation) {
            return new LimitDescriptor(operation.name(), operation.displayName(), operation.method(),
                    operation.key() == null ? null : operation.key().source(), operation.spec().rate(),
                    operation.spec().interval().toString(), operation.spec().interval().toMillis(),
                    operation.spec().mode().name(), operation.permits(),
                    operation.waitTimeout().isZero() ? null : operation.waitTimeout().toString(),
                    operation.fallback() == null ? null : operation.fallback().toString(),
                    operation.condition() == null ? null : operation.condition().source(),
                    operation.skipIf() == null ? null : operation.skipIf().source(), operation.source());
        }
    }

    /**
     * A limit and, for one key, its live state.
     * @param limits the declared limits of that name (several methods may share one)
     * @param key the logical key read, or null when the limit needs a key and none was given
     * @param availablePermits permits free now (this instance's bucket for {@code PER_CLIENT})
     * @param nextPermitInMillis time until the oldest grant returns its permits
     */
    public record LimitStateDescriptor(List<LimitDescriptor> limits, String key, String limiterName,
            Long availablePermits, Long nextPermitInMillis) implements OperationResponseBody {
    }
}
