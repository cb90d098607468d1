package io.github.redissonratelimit.limiter;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A hint to backends (SPI): the {@link RateLimitBackend#acquire acquires} made on this thread until {@link #close()}
 * belong to one call (the limits of one rate limited method call), so a backend may send them together, e.g. as one
 * command instead of one per limit. Their decisions stay independent: only the transport is shared.
 *
 * <p>The interceptor opens one around asking the limits of a call that has several, in a try-with-resources on the
 * asking thread; decorators pass the acquires on to their delegate synchronously, so they reach the backend inside
 * it. A backend that wants to send them together {@linkplain #hold holds} each acquire and sends what it held when
 * the scope closes; a backend that ignores the hint sends each at once, as always. Scopes nest: each
 * {@link #close()} sends what was held since its own {@link #open()}, so an inner call is never kept waiting for an
 * outer one. A scope must be closed on the thread that opened it, and must be closed: held acquires are sent only
 * then.
 */
public final class SameCallAcquires implements AutoCloseable {

    private static final ThreadLocal<SameCallAcquires> CURRENT = new ThreadLocal<>();

    private final Thread owner = Thread.currentThread();
    /** One level per open scope, innermost last; levels are kept and reused, only {@code depth} of them are open. */
    private final List<List<Held<?>>> levels = new ArrayList<>(2);
    private int depth;

    private SameCallAcquires() {
    }

    /** Opens a scope on this thread (inside the scope already open, if any). */
    public static SameCallAcquires open() {
        SameCallAcquires scope = CURRENT.get();
        if (scope == null) {
            scope = new SameCallAcquires();
            CURRENT.set(scope);
        }
        if (scope.depth == scope.levels.size()) {
            scope.levels.add(new ArrayList<>(2));
        }
        scope.depth++;
        return scope;
    }

    /**
     * For a backend: holds {@code acquire} until the innermost scope open on this thread closes, when
     * {@code send} is given everything {@code sender} held in it, in the order held.
     *
     * @param sender who sends the acquire ({@code send} is called once per sender and scope)
     * @return false when no scope is open on this thread: nothing was held, send the acquire now
     */
    public static <T> boolean hold(Object sender, T acquire, Consumer<? super List<T>> send) {
        SameCallAcquires scope = CURRENT.get();
        if (scope == null || scope.depth == 0) {
            return false;
        }
        scope.levels.get(scope.depth - 1).add(new Held<>(sender, acquire, send));
        return true;
    }

    /**
     * Closes the innermost scope: hands what was held in it to the senders. Every sender is called even when one
     * throws; the first exception is then rethrown.
     */
    @Override
    public void close() {
        if (Thread.currentThread() != owner) {
            throw new IllegalStateException("A SameCallAcquires scope must be closed on the thread that opened it");
        }
        if (depth == 0) {
            return;
        }
        List<Held<?>> level = levels.get(--depth);
        if (level.isEmpty()) {
            return;
        }
        List<Held<?>> held = List.copyOf(level);
        level.clear();
        RuntimeException failure = null;
        boolean[] sent = new boolean[held.size()];
        for (int i = 0; i < held.size(); i++) {
            if (!sent[i]) {
                try {
                    sendFrom(held, i, sent);
                }
                catch (RuntimeException ex) {
                    if (failure == null) {
                        failure = ex;
                    }
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Sends, through the sender of {@code held[first]}, every acquire it held (marked in {@code sent}). */
    @SuppressWarnings("unchecked")
    private static <T> void sendFrom(List<Held<?>> held, int first, boolean[] sent) {
        Held<T> head = (Held<T>) held.get(first);
        List<T> acquires = new ArrayList<>(held.size() - first);
        for (int i = first; i < held.size(); i++) {
            if (!sent[i] && held.get(i).sender() == head.sender()) {
                acquires.add(((Held<T>) held.get(i)).acquire());
                sent[i] = true;
            }
        }
        head.send().accept(acquires);
    }

    private record Held<T>(Object sender, T acquire, Consumer<? super List<T>> send) {
    }
}
