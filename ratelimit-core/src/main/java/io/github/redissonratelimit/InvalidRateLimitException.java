package io.github.redissonratelimit;

/**
 * A {@code @RateLimit} declaration cannot work. Thrown while the application starts (when the
 * annotated bean is proxied), naming the method, the attribute and how to fix it.
 */
public class InvalidRateLimitException extends RateLimitException {

    private final String method;
    private final String attribute;
    private final String problem;
    private final String fix;

    public InvalidRateLimitException(String method, String attribute, String problem, String fix, Throwable cause) {
        super("Invalid @RateLimit on " + method + ": " + attribute + " " + problem + ". Fix: " + fix, cause);
        this.method = method;
        this.attribute = attribute;
        this.problem = problem;
        this.fix = fix;
    }

    /** What is wrong with the attribute, e.g. {@code must be greater than 0 but was 0}. */
    public String getProblem() {
        return problem;
    }

    /** How to fix it. */
    public String getFix() {
        return fix;
    }

    public String getMethod() {
        return method;
    }

    /** The annotation attribute (or property) at fault, e.g. {@code rate}. */
    public String getAttribute() {
        return attribute;
    }
}
