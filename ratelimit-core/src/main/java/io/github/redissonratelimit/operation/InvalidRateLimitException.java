package io.github.redissonratelimit.operation;

/**
 * A {@code @RateLimit} declaration cannot work. Thrown while the application starts (when the
 * annotated bean is proxied), naming the method, the attribute and how to fix it.
 */
public class InvalidRateLimitException extends IllegalStateException {

    private final String method;
    private final String attribute;

    public InvalidRateLimitException(String method, String attribute, String problem, String fix, Throwable cause) {
        super("Invalid @RateLimit on " + method + ": " + attribute + " " + problem + ". Fix: " + fix, cause);
        this.method = method;
        this.attribute = attribute;
    }

    public String getMethod() {
        return method;
    }

    /** The annotation attribute (or property) at fault, e.g. {@code rate}. */
    public String getAttribute() {
        return attribute;
    }
}
