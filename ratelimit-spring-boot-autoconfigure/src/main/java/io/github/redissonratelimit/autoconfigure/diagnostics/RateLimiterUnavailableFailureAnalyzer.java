package io.github.redissonratelimit.autoconfigure.diagnostics;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import io.github.redissonratelimit.autoconfigure.RateLimiterUnavailableException;
import io.github.redissonratelimit.UnsupportedRedissonVersionException;

/** Explains a startup failure caused by rate limits declared with no Redis client to enforce them. */
class RateLimiterUnavailableFailureAnalyzer extends AbstractFailureAnalyzer<RateLimiterUnavailableException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, RateLimiterUnavailableException cause) {
        int unlisted = cause.getDeclarationCount() - cause.getDeclarations().size();
        String description = "Rate limits are declared, but no rate limiter can be built for them: without one, "
                + "every limit would silently do nothing.\n\n"
                + "    Declared:  " + String.join("\n               ", cause.getDeclarations())
                + (unlisted > 0 ? "\n               and " + unlisted + " more" : "") + "\n"
                + "    Redisson:  " + redisson(cause) + "\n";
        return new FailureAnalysis(description, action(cause), cause);
    }

    private static String redisson(RateLimiterUnavailableException cause) {
        if (cause.getRedissonVersion() == null) {
            return "not on the class path";
        }
        String client = "org.redisson:redisson " + cause.getRedissonVersion() + " is on the class path, but there is "
                + "no RedissonClient bean";
        return cause.getRedissonProblem() == null ? client
                : client + "\n    Problem:   Redisson " + cause.getRedissonVersion() + " cannot run the limiter: "
                        + cause.getRedissonProblem() + " (supported: " + UnsupportedRedissonVersionException.SUPPORTED_VERSIONS + ")";
    }

    private static String action(RateLimiterUnavailableException cause) {
        StringBuilder action = new StringBuilder("Give the rate limiter a Redis client, or turn it off:\n");
        if (cause.getRedissonProblem() != null) {
            action.append("  - use a supported Redisson: set the version of org.redisson:redisson and "
                    + "org.redisson:redisson-spring-boot-starter (for example <redisson.version> in your pom) to one in "
                    + "the supported range, or remove your pin to get the one ratelimit-spring-boot-starter brings;\n");
        }
        return action.append("  - depend on org.redisson:redisson-spring-boot-starter (ratelimit-spring-boot-starter "
                + "brings it) and configure spring.data.redis.* (or spring.redis.redisson.*), and check that its "
                + "auto-configuration is not excluded;\n"
                + "  - or declare a RedissonClient @Bean;\n"
                + "  - or, to run on purpose with no rate limiting at all (every @RateLimit method runs unlimited), "
                + "set ratelimit.enabled=false.")
                .toString();
    }
}
