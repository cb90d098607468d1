package io.github.redissonratelimit.operation;

/** A resolved value and where it came from, e.g. {@code ratelimit.policies.order-submit.rate}. */
record Sourced<T>(T value, String origin) {
}
