package io.github.redissonratelimit.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import io.github.redissonratelimit.test.redis.RedisDeployment;

/**
 * Records, through {@code MONITOR}, every script call ({@code EVALSHA}, {@code EVAL}) whose first key is one of
 * some limiters, with the commands it ran, each stamped by Redis's clock. A call that ran nothing (Redis answered
 * {@code NOSCRIPT}) is left out, since it changed nothing: Redisson sends it again. What is recorded is what Redis
 * executed, whatever the clients under test believe.
 */
final class ScriptCallLog extends MonitorLog {

    /** A command a script ran, and when (µs, Redis's clock). */
    record ScriptCommand(long stampMicros, List<String> tokens) {
    }

    /**
     * One script call: when Redis started it (µs, Redis's clock: {@code MONITOR} stamps a call before it runs),
     * its limiter (first key), its arguments and what it ran.
     */
    record ScriptCall(long stampMicros, String limiterName, List<String> arguments, List<ScriptCommand> commands) {

        /** The give-back or renewal of lease {@code r<id>}: its id, else -1. */
        long receipt() {
            if (arguments.size() < 4 || !arguments.get(3).matches("r\\d+")) {
                return -1;
            }
            return Long.parseLong(arguments.get(3).substring(1));
        }

        boolean renewal() {
            return arguments.size() == 6 && arguments.get(5).equals("renew");
        }

        /** An in-flight decision (the acquire scripts' argument {@code i <permits> ...}). */
        boolean acquire() {
            return !arguments.isEmpty() && arguments.get(0).startsWith("i ");
        }
    }

    private final Set<String> limiterNames;
    private final List<ScriptCall> calls;
    private ScriptCall running; // reader thread only

    private ScriptCallLog(RedisDeployment redis, Set<String> limiterNames, List<ScriptCall> calls) {
        super(redis, limiterNames.iterator().next());
        this.limiterNames = Set.copyOf(limiterNames);
        this.calls = calls;
    }

    /**
     * Records into {@code calls} (read it after {@link #close()}) until closed. A log per life of a Redis that is
     * restarted, each appending to the same list, records them all in order.
     */
    static ScriptCallLog start(RedisDeployment redis, Set<String> limiterNames, List<ScriptCall> calls) {
        ScriptCallLog log = new ScriptCallLog(redis, limiterNames, calls);
        log.startReading("script-call-log");
        return log;
    }

    @Override
    void command(long stampMicros, boolean fromScript, List<String> tokens) {
        if (fromScript) {
            if (running != null) {
                running.commands().add(new ScriptCommand(stampMicros, List.copyOf(tokens)));
            }
            return;
        }
        ended();
        String name = tokens.isEmpty() ? "" : tokens.get(0);
        if (tokens.size() < 4 || !(name.equalsIgnoreCase("evalsha") || name.equalsIgnoreCase("eval"))) {
            return;
        }
        int keys = Integer.parseInt(tokens.get(2));
        if (keys > 0 && limiterNames.contains(tokens.get(3))) {
            running = new ScriptCall(stampMicros, tokens.get(3), List.copyOf(tokens.subList(3 + keys, tokens.size())),
                    new ArrayList<>());
        }
    }

    /** The script call before a client's next command (or the end of the log) is over. */
    @Override
    void ended() {
        if (running != null && !running.commands().isEmpty()) {
            calls.add(new ScriptCall(running.stampMicros(), running.limiterName(), running.arguments(),
                    List.copyOf(running.commands())));
        }
        running = null;
    }
}
