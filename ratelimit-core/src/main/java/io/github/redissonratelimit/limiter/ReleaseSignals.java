package io.github.redissonratelimit.limiter;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Tells a caller waiting for the permits of a limit whose permits come back when calls end (an in-flight limit) that
 * some came back, so that it asks again when a call ended instead of on a timer. The Redis backend's give-backs
 * publish on a channel of their limiter; an implementation wakes its waiters in the order they began to wait.
 */
public interface ReleaseSignals {

    /** No signals: waiters ask again on a timer only. */
    ReleaseSignals NONE = (limiterName, permits, arrival) -> {
        CompletableFuture<Void> never = new CompletableFuture<>();
        return () -> never;
    };

    /**
     * A stage completing when permits of {@code limiterName} may have come back for this waiter: the next give-back
     * (of enough permits for the waiters before it) after the stage's listening started. The caller cancels the stage
     * when it stops waiting for it. Listening may take a round trip; it has started once {@code listening()} of the
     * returned signal completed.
     *
     * @param permits the permits the waiter asks for
     * @param arrival when the waiter began to wait ({@link System#nanoTime()}): earlier waiters are woken first
     */
    Signal next(String limiterName, long permits, long arrival);

    /** A waiter's signal: {@link #released()} completes when permits may have come back. */
    @FunctionalInterface
    interface Signal {

        /** Completes once give-backs are listened for (a subscription made); a give-back from then on wakes. */
        default CompletionStage<Void> listening() {
            return CompletableFuture.completedFuture(null);
        }

        /** Completes when permits may have come back; cancelling it stops the waiter's listening. */
        CompletableFuture<Void> released();
    }
}
