package io.github.redissonratelimit;

/**
 * A {@code @RateLimit(cost = "...")} expression gave no cost the limit can take for a call: it failed, gave
 * something other than a whole number, a negative number, or more permits than the limit's rate (no call of
 * that cost could ever be allowed). The call is not made and nothing is taken.
 *
 * <p>The request is to blame (its cost comes from its arguments), so, as for a key that cannot be computed (this
 * is a {@link RateLimitKeyException}), a web application answers it with HTTP 400 naming the limit, and logs one
 * WARN line. The message names the method, the expression and the computed cost, never the arguments themselves
 * unless the expression's own error quotes them; escape it before logging
 * ({@link io.github.redissonratelimit.log.LogSafe}).
 */
public class RateLimitCostException extends RateLimitKeyException {

    private final Long cost;

    /**
     * @param cost the computed cost, or {@code null} when the expression gave none
     * @param problem what is wrong, e.g. {@code gave -1, a negative cost}
     */
    public RateLimitCostException(String method, String expression, String limitName, String displayName, Long cost,
            String problem, Throwable cause) {
        super("@RateLimit cost \"" + expression + "\" of limit '" + limitName + "' on " + method + " " + problem,
                method, expression, limitName, displayName, cause);
        this.cost = cost;
    }

    /** The cost the expression gave, or {@code null} when it gave no whole number. */
    public Long getCost() {
        return cost;
    }

    /** {@code a negative cost}, {@code a cost above the rate} or {@code no valid cost}. */
    @Override
    public String getRequestProblem() {
        if (cost == null) {
            return "no valid cost";
        }
        return cost < 0 ? "a negative cost" : "a cost above the rate";
    }
}
