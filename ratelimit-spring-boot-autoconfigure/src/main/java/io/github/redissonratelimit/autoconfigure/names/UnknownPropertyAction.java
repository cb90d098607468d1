package io.github.redissonratelimit.autoconfigure.names;

/** What startup does with a property under {@code ratelimit.} that names no setting ({@code ratelimit.unknown-properties}). */
public enum UnknownPropertyAction {

    /** Startup fails, naming each unknown property and the nearest valid name. */
    FAIL,

    /** One warning lists each unknown property and the nearest valid name; startup goes on. */
    WARN,

    /** Unknown properties are ignored, as Spring Boot does by default. */
    IGNORE
}
