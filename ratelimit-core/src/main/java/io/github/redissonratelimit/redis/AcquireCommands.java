package io.github.redissonratelimit.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.redisson.api.RScript;
import org.redisson.api.RScriptAsync;
import org.redisson.client.RedisException;

/**
 * Sends {@link AcquireCall}s as script calls: one alone as {@code acquire.lua}, several as one {@code acquire-many.lua}
 * call that decides each of them as {@code acquire.lua} would, in order. Either way each call's result completes with
 * its own answer, or fails with the error its own {@code acquire.lua} call would have raised (a Redis error carrying
 * Redis's error text, which {@code BackendErrors} classifies the same way).
 *
 * <p>The caller giving up is relayed to Redisson (which then stops retrying the command): for a call alone at once,
 * for calls sent together once every one of them gave up.
 */
final class AcquireCommands {

    private final AcquireScript script;

    AcquireCommands(AcquireScript script) {
        this.script = script;
    }

    /** Sends one call, or a group of them in one script call. */
    void send(RScriptAsync target, QueuedAcquire queued) {
        if (queued instanceof AcquireCall call) {
            send(target, call);
        }
        else {
            send(target, ((AcquireGroup) queued).calls());
        }
    }

    /** Sends {@code calls}, all to the same slot, in one script call. */
    private void send(RScriptAsync target, List<AcquireCall> calls) {
        List<Object> keys = new ArrayList<>(5 * calls.size());
        Object[] arguments = new Object[calls.size()];
        for (int i = 0; i < calls.size(); i++) {
            AcquireCall call = calls.get(i);
            keys.addAll(script.keys(call.limiterName()));
            arguments[i] = script.argument(call.permits(), call.spec(), call.check());
        }
        CompletableFuture<List<Object>> reply = target.<List<Object>>evalAsync(calls.get(0).limiterName(),
                RScript.Mode.READ_WRITE, LuaScripts.ACQUIRE_MANY, RedissonCompatibility.LIST, keys, arguments)
                .toCompletableFuture();
        reply.whenComplete((values, ex) -> {
            for (int i = 0; i < calls.size(); i++) {
                CompletableFuture<AcquireScript.Reply> result = calls.get(i).result();
                if (ex != null) {
                    result.completeExceptionally(ex);
                }
                else if (values == null || values.size() != calls.size()) {
                    result.completeExceptionally(new IllegalStateException("acquire-many answered "
                            + (values == null ? "nothing" : values.size() + " replies") + " for " + calls.size()
                            + " limiters"));
                }
                else {
                    complete(result, values.get(i));
                }
            }
        });
        for (AcquireCall call : calls) {
            call.result().whenComplete((answer, ex) -> {
                if (call.result().isCancelled() && calls.stream().allMatch(each -> each.result().isCancelled())) {
                    reply.cancel(false);
                }
            });
        }
    }

    /** Relays Redis's answer to the call, and the caller giving up to Redisson (which then stops retrying it). */
    private void send(RScriptAsync target, AcquireCall call) {
        String name = call.limiterName();
        CompletableFuture<List<Object>> reply = target.<List<Object>>evalAsync(name, RScript.Mode.READ_WRITE,
                LuaScripts.ACQUIRE, RedissonCompatibility.LIST, script.keys(name),
                script.argument(call.permits(), call.spec(), call.check())).toCompletableFuture();
        reply.whenComplete((values, ex) -> {
            if (ex != null) {
                call.result().completeExceptionally(ex);
            }
            else {
                parse(call.result(), values);
            }
        });
        call.result().whenComplete((answer, ex) -> {
            if (call.result().isCancelled()) {
                reply.cancel(false);
            }
        });
    }

    /** One limiter's reply: {@code acquire.lua}'s list, or in {@code acquire-many.lua}'s reply the text of its error. */
    private static void complete(CompletableFuture<AcquireScript.Reply> result, Object reply) {
        if (reply instanceof List<?> values) {
            parse(result, values);
        }
        else {
            result.completeExceptionally(new RedisException(String.valueOf(reply)));
        }
    }

    private static void parse(CompletableFuture<AcquireScript.Reply> result, List<?> values) {
        try {
            result.complete(AcquireScript.Reply.parse(values));
        }
        catch (RuntimeException parseError) {
            result.completeExceptionally(parseError);
        }
    }
}
