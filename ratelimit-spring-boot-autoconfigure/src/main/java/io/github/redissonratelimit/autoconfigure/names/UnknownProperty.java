package io.github.redissonratelimit.autoconfigure.names;

import org.springframework.boot.origin.Origin;

/**
 * A property under {@code ratelimit.} that names no setting.
 *
 * @param name the property as written (or as its source maps it, e.g. an environment variable)
 * @param origin where it is set, if its source tells
 * @param suggestion the valid name nearest to it, map keys kept as written
 */
public record UnknownProperty(String name, Origin origin, String suggestion) {

    /** "ratelimit.polices.x.rate (did you mean ratelimit.policies.x.rate?)", with its origin when known. */
    public String describe() {
        return name + " (did you mean " + suggestion + "?)" + (origin == null ? "" : " [" + origin + "]");
    }
}
