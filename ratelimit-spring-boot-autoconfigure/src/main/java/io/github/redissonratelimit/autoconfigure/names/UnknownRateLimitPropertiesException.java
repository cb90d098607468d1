package io.github.redissonratelimit.autoconfigure.names;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Startup found properties under {@code ratelimit.} that name no setting, and {@code ratelimit.unknown-properties} is
 * {@code fail}: each would be ignored, the limit it meant to set left as it was.
 */
public class UnknownRateLimitPropertiesException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient List<UnknownProperty> properties;

    public UnknownRateLimitPropertiesException(List<UnknownProperty> properties) {
        super("Unknown rate limit properties: " + properties.stream().map(UnknownProperty::describe)
                .collect(Collectors.joining("; ")));
        this.properties = List.copyOf(properties);
    }

    /** The unknown properties, each with the nearest valid name. */
    public List<UnknownProperty> getProperties() {
        return properties;
    }
}
