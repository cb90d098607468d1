package io.github.redissonratelimit.limiter;

import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

/**
 * The one place that takes the exception a stage failed with out of Java's wrappers of it
 * ({@link CompletionException} from {@code join} and dependent stages, {@link ExecutionException} from {@code get}).
 */
public final class Completions {

    private Completions() {
    }

    /** The exception inside {@code error}'s {@link CompletionException} or {@link ExecutionException} wrappers. */
    public static Throwable unwrap(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return cause;
    }

    /**
     * Waits for {@code stage}; a failure is thrown as the exception it failed with when that is unchecked, else
     * as the {@link CompletionException} that wraps it.
     */
    public static <T> T join(CompletionStage<T> stage) {
        try {
            return stage.toCompletableFuture().join();
        }
        catch (CompletionException ex) {
            throw unwrap(ex) instanceof RuntimeException cause ? cause : ex;
        }
    }
}
