package io.github.redissonratelimit.resilience;

import java.util.concurrent.TimeoutException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.redissonratelimit.limiter.MasterLocator;
import io.github.redissonratelimit.log.LogSafe;
import io.github.redissonratelimit.outcome.CircuitState;
import io.github.redissonratelimit.resilience.MasterCircuits.MasterCircuit;

/** What {@link ResilientRateLimitBackend} logs and says of an outage, under its logger. */
final class OutageLog {

    private static final Log logger = LogFactory.getLog(ResilientRateLimitBackend.class);

    private OutageLog() {
    }

    /** One WARN when a circuit opens, one INFO when it closes again, DEBUG otherwise. */
    static void circuitChanged(MasterCircuit circuit, CircuitState from, CircuitState to) {
        String redis = "Redis" + on(circuit);
        if (to == CircuitState.OPEN && from == CircuitState.CLOSED) {
            boolean single = isSingle(circuit);
            logger.warn(redis + " failed " + circuit.breaker().failureThreshold() + " rate limit decisions in a row "
                    + "(last: " + LogSafe.text(describe(circuit.lastFailure())) + "); skipping " + (single ? "Redis" : "it")
                    + " for " + circuit.breaker().openDuration().toMillis() + "ms at a time until it answers again. "
                    + "Meanwhile each limit " + (single ? "" : "whose keys it holds ")
                    + "applies its on-backend-error policy (local, allow or deny).");
        }
        else if (to == CircuitState.CLOSED) {
            logger.info(redis + " answers rate limit decisions again; limits apply normally.");
        }
        else if (logger.isDebugEnabled()) {
            logger.debug("Rate limit circuit of " + circuit.master() + " " + from + " -> " + to);
        }
    }

    /** {@code " master host:port"} on a Redis Cluster, nothing for a single master. */
    static String on(MasterCircuit circuit) {
        return isSingle(circuit) ? "" : " master " + circuit.master();
    }

    private static boolean isSingle(MasterCircuit circuit) {
        return MasterLocator.SINGLE_MASTER.equals(circuit.master());
    }

    static String describe(Throwable error) {
        if (error == null) {
            return "none";
        }
        if (error instanceof TimeoutException) {
            return error.getMessage() != null ? error.getMessage() : "no answer within the deadline";
        }
        return error.getClass().getSimpleName() + ": " + error.getMessage();
    }
}
