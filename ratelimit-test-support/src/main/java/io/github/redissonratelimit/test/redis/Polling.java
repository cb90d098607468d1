package io.github.redissonratelimit.test.redis;

import java.time.Duration;
import java.util.function.Supplier;

/** Waiting for a test deployment to reach a state: polled, with the last state seen in the timeout's message. */
final class Polling {

    private Polling() {
    }

    /** Marks a probe as not there yet: {@link #await} retries it and reports the last {@code state} on timeout. */
    static String notYet(Object state) {
        throw new NotYet(String.valueOf(state));
    }

    /** Polls {@code probe} every 50 ms until it returns without throwing; returns its result. */
    static String await(Duration timeout, String what, Supplier<String> probe) {
        long deadline = System.nanoTime() + timeout.toNanos();
        RuntimeException last = null;
        while (System.nanoTime() < deadline) {
            try {
                return probe.get();
            }
            catch (RuntimeException ex) {
                last = ex;
            }
            sleep(50);
        }
        throw new IllegalStateException("Timed out after " + timeout.toMillis() + " ms waiting for " + what
                + (last == null ? "" : ": " + last.getMessage()), last);
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    private static final class NotYet extends RuntimeException {
        NotYet(String state) {
            super(state, null, false, false);
        }
    }
}
