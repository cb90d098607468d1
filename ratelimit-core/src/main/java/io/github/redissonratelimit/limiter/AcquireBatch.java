package io.github.redissonratelimit.limiter;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.ObjIntConsumer;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;

/**
 * How the limits of one call are asked in order ({@link RateLimitBackend#acquireAll}), for backends and
 * decorators: the asking stops after the first limit whose answer is known at once and may end the call, so that
 * the limits after it cost nothing; the caller asks the rest again if that answer turned out not to end it.
 */
public final class AcquireBatch {

    private AcquireBatch() {
    }

    /** What a decorator adds around its delegate's batch. */
    public interface Layer {

        /** The decorator's own answer to request {@code index} (from memory, without the delegate), or null. */
        CompletionStage<Decision> answer(int index);

        /** The decorator's answer once the delegate answered request {@code index} with {@code asked}. */
        CompletionStage<Decision> after(int index, CompletionStage<Decision> asked);
    }

    /**
     * Whether {@code decision}, already known, may end the call of {@code request}: a rejection of a limit not in
     * shadow mode, or a failure other than a {@link NoDecision} under the {@code ALLOW}
     * policy (under {@code LOCAL} the local decision may still reject). A pending answer never does.
     */
    public static boolean mayEndTheCall(AcquireRequest request, CompletionStage<Decision> decision) {
        CompletableFuture<Decision> known = decision.toCompletableFuture();
        if (!known.isDone() || request.shadow()) {
            return false;
        }
        try {
            return !known.join().allowed();
        }
        catch (CompletionException | CancellationException ex) {
            return !(Completions.unwrap(ex) instanceof NoDecision
                    && request.onBackendError() == BackendErrorPolicy.ALLOW);
        }
    }

    /** The default batch: asks each request in turn through {@code backend}'s {@code acquire}. */
    public static List<CompletionStage<Decision>> oneByOne(RateLimitBackend backend, List<AcquireRequest> requests) {
        List<CompletionStage<Decision>> decisions = new ArrayList<>(requests.size());
        for (AcquireRequest request : requests) {
            CompletionStage<Decision> decision;
            try {
                decision = backend.acquire(request);
            }
            catch (RuntimeException ex) {
                decision = CompletableFuture.failedFuture(ex);
            }
            decisions.add(decision);
            if (mayEndTheCall(request, decision)) {
                break;
            }
        }
        return decisions;
    }

    /**
     * {@code requests} decided in order by a decorator: each one it answers itself ({@link Layer#answer}) is
     * answered in its place; the runs of others in between go to {@code delegate} as one batch each, their answers
     * passed through {@link Layer#after}. Stops after an answer that may end the call, or where the delegate stopped
     * (telling {@code notAsked} of each request given to the delegate that it did not ask).
     */
    public static List<CompletionStage<Decision>> decorate(List<AcquireRequest> requests, RateLimitBackend delegate,
            Layer layer, ObjIntConsumer<AcquireRequest> notAsked) {
        List<CompletionStage<Decision>> decisions = new ArrayList<>(requests.size());
        int forwardFrom = 0;
        for (int i = 0; i < requests.size(); i++) {
            CompletionStage<Decision> own = layer.answer(i);
            if (own == null) {
                continue;
            }
            if (!forward(requests, forwardFrom, i, delegate, layer, notAsked, decisions)) {
                return decisions;
            }
            decisions.add(own);
            forwardFrom = i + 1;
            if (mayEndTheCall(requests.get(i), own)) {
                return decisions;
            }
        }
        forward(requests, forwardFrom, requests.size(), delegate, layer, notAsked, decisions);
        return decisions;
    }

    /** @return false when the delegate stopped before {@code to} */
    private static boolean forward(List<AcquireRequest> requests, int from, int to, RateLimitBackend delegate,
            Layer layer, ObjIntConsumer<AcquireRequest> notAsked, List<CompletionStage<Decision>> decisions) {
        if (from == to) {
            return true;
        }
        List<CompletionStage<Decision>> asked = ask(delegate, requests.subList(from, to));
        for (int k = 0; k < asked.size(); k++) {
            decisions.add(layer.after(from + k, asked.get(k)));
        }
        for (int k = from + asked.size(); k < to; k++) {
            notAsked.accept(requests.get(k), k);
        }
        return asked.size() == to - from;
    }

    private static List<CompletionStage<Decision>> ask(RateLimitBackend delegate, List<AcquireRequest> requests) {
        List<CompletionStage<Decision>> asked;
        try {
            asked = delegate.acquireAll(requests);
        }
        catch (RuntimeException ex) {
            asked = List.of(CompletableFuture.failedFuture(ex));
        }
        return asked.isEmpty() ? List.of(CompletableFuture.failedFuture(new IllegalStateException(
                delegate.getClass().getName() + ".acquireAll asked none of " + requests.size() + " requests")))
                : asked;
    }
}
