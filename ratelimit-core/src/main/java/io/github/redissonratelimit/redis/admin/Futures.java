package io.github.redissonratelimit.redis.admin;

import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/** Blocking on a stage for callers that want the stage's own exception, not Java's wrapper of it. */
final class Futures {

    private Futures() {
    }

    /**
     * Waits for {@code stage}; a failure is thrown as the exception it failed with when that is unchecked, else
     * as the {@link CompletionException} that wraps it.
     */
    static <T> T join(CompletionStage<T> stage) {
        try {
            return stage.toCompletableFuture().join();
        }
        catch (CompletionException ex) {
            throw ex.getCause() instanceof RuntimeException cause ? cause : ex;
        }
    }
}
