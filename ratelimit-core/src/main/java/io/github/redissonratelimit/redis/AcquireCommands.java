package io.github.redissonratelimit.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.redisson.api.RScript;
import org.redisson.api.RScriptAsync;

import io.github.redissonratelimit.log.LogSafe;

/**
 * Sends {@link AcquireCall}s as script calls: one alone as {@code acquire.lua}, several as one {@code acquire-many.lua}
 * call that decides each of them as {@code acquire.lua} would, in order. Either way each call's result completes with
 * its own answer, or fails with its own error: {@link IllegalArgumentException} for more permits than the rate, a
 * {@link LimiterScriptException} for an error raised while its decision ran (from the reply's structure for a call
 * sent with others), Redisson's exception for Redis refusing or failing the script call itself.
 *
 * <p>The caller giving up is relayed to Redisson (which then stops retrying the command): for a call alone at once,
 * for calls sent together once every one of them gave up.
 */
final class AcquireCommands {

    /** The first element of a decision's reply that is no decision (see {@code decide.lua}, {@code acquire-many.lua}). */
    private static final long TOO_MANY = -1;

    private static final long COMMAND_ERROR = -2;

    private static final long SCRIPT_ERROR = -3;

    /** The limiter holds another algorithm's state, which only {@link LuaScripts#ACQUIRE} decides with. */
    private static final long OTHER_ALGORITHM = -4;

    /** A calendar quota's bounds held none of Redis's time (the reply's second element, ms): nothing was written. */
    private static final long STALE_BOUNDS = -5;

    private final AcquireScript script;
    private final RScriptAsync direct;

    /** @param direct where a call is sent again as {@link LuaScripts#ACQUIRE} when its own script cannot decide it */
    AcquireCommands(AcquireScript script, RScriptAsync direct) {
        this.script = script;
        this.direct = direct;
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
            arguments[i] = script.argument(call);
        }
        CompletableFuture<List<Object>> reply = target.<List<Object>>evalAsync(calls.get(0).limiterName(),
                RScript.Mode.READ_WRITE, LuaScripts.ACQUIRE_MANY.text(), RedissonCompatibility.LIST, keys,
                arguments).toCompletableFuture();
        reply.whenComplete((values, ex) -> {
            for (int i = 0; i < calls.size(); i++) {
                AcquireCall call = calls.get(i);
                if (ex != null) {
                    call.result().completeExceptionally(LuaScripts.ACQUIRE_MANY.located(ex));
                }
                else if (values == null || values.size() != calls.size()) {
                    call.result().completeExceptionally(new IllegalStateException("acquire-many answered "
                            + (values == null ? "nothing" : values.size() + " replies") + " for " + calls.size()
                            + " limiters"));
                }
                else {
                    complete(call, values.get(i), LuaScripts.ACQUIRE_MANY, false);
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

    /**
     * Relays Redis's answer to the call, and the caller giving up to Redisson (which then stops retrying it). The call
     * goes as its algorithm's own script, and again as {@link LuaScripts#ACQUIRE} when the limiter holds the state of
     * another algorithm (a limit whose algorithm changed), once.
     */
    private void send(RScriptAsync target, AcquireCall call) {
        send(target, call, LuaScripts.ofAlgorithm(call.spec().algorithm()), false);
    }

    /** @param anchored the call goes again after its calendar bounds were found stale */
    private void send(RScriptAsync target, AcquireCall call, LuaScripts.Script sent, boolean anchored) {
        String name = call.limiterName();
        CompletableFuture<List<Object>> reply = target.<List<Object>>evalAsync(name, RScript.Mode.READ_WRITE,
                sent.text(), RedissonCompatibility.LIST, script.keys(name),
                script.argument(call)).toCompletableFuture();
        reply.whenComplete((values, ex) -> {
            if (ex != null) {
                call.result().completeExceptionally(sent.located(ex));
            }
            else if (sent != LuaScripts.ACQUIRE && !values.isEmpty()
                    && values.get(0) instanceof Number status && status.longValue() == OTHER_ALGORITHM) {
                send(direct, call, LuaScripts.ACQUIRE, anchored);
            }
            else {
                complete(call, values, sent, anchored);
            }
        });
        call.result().whenComplete((answer, ex) -> {
            if (call.result().isCancelled()) {
                reply.cancel(false);
            }
        });
    }

    /**
     * One limiter's reply: a decision, or what kept the script from deciding (see {@code decide.lua}). Stale calendar
     * bounds (this JVM's clock a window or more off Redis's) anchor the calendar to Redis's time and the call goes
     * again, once.
     */
    private void complete(AcquireCall call, Object reply, LuaScripts.Script sent, boolean anchored) {
        CompletableFuture<AcquireScript.Reply> result = call.result();
        try {
            List<?> values = (List<?>) reply;
            long status = ((Number) values.get(0)).longValue();
            if (status == STALE_BOUNDS && !anchored && !result.isDone()) {
                script.anchorCalendar(((Number) values.get(1)).longValue());
                send(direct, call, LuaScripts.ACQUIRE, true);
            }
            else if (status == STALE_BOUNDS) {
                result.completeExceptionally(new LimiterScriptException("The window bounds of calendar quota '"
                        + LogSafe.text(call.limiterName()) + "' were stale again after anchoring to Redis's time "
                        + values.get(1) + " ms"));
            }
            else if (status == TOO_MANY) {
                result.completeExceptionally(tooMany(call, ((Number) values.get(1)).longValue()));
            }
            else if (status == COMMAND_ERROR) {
                result.completeExceptionally(new LimiterScriptException(values.get(1)
                        + " [raised by a command of the decision of rate limiter '" + LogSafe.text(call.limiterName())
                        + "' in user_script " + sent + "]"));
            }
            else if (status == SCRIPT_ERROR) {
                result.completeExceptionally(new LimiterScriptException(sent.withPlaces(String.valueOf(values.get(1)))
                        + " [raised by the decision of rate limiter '" + LogSafe.text(call.limiterName()) + "']"));
            }
            else {
                result.complete(AcquireScript.Reply.parse(values));
            }
        }
        catch (RuntimeException parseError) {
            result.completeExceptionally(parseError);
        }
    }

    /** Refused before anything was taken (and, for a limiter without config, before anything was written). */
    private static IllegalArgumentException tooMany(AcquireCall call, long most) {
        String what = call.spec().capacityName();
        return new IllegalArgumentException("Requested permits amount cannot exceed defined rate: "
                + call.permits() + " permits of rate limiter '" + LogSafe.text(call.limiterName()) + "', whose " + what
                + " is " + most + " (the permits of one call must not exceed the " + what + " of any of its limits)");
    }
}
