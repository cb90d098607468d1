package io.github.redissonratelimit.redis;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.local.GrantWriter;

/**
 * Writes the grants the {@code local} outage policy made in memory into the limiters' windows in Redis
 * ({@code write-back.lua}, one script call per limiter), on the keys and with the clock the backend of the same
 * options decides with: Redis's {@code TIME} at the write less each grant's age, or the caller's clock for
 * {@link LimiterClock#CLIENT}.
 */
public final class InMemoryGrantWriter implements GrantWriter {

    private final RedissonClient redisson;
    private final BackendOptions options;
    private final InstantSource clientClock;
    private final AcquireScript script;

    public InMemoryGrantWriter(RedissonClient redisson, BackendOptions options) {
        this.redisson = redisson;
        this.options = options;
        this.clientClock = InstantSource.system();
        this.script = new AcquireScript(redisson.getId(), options, clientClock);
    }

    @Override
    public CompletionStage<Long> write(String limiterName, LimitSpec spec, List<Grant> grants) {
        long intervalMillis = spec.interval().toMillis();
        long keepAlive = options.keepAlive(spec.interval()).toMillis();
        List<Object> arguments = new ArrayList<>(grants.size() + 4);
        arguments.add(options.clock() == LimiterClock.CLIENT ? Long.toString(clientClock.millis()) : "0");
        arguments.add(AcquireScript.writeBackDeclaration(spec));
        arguments.add(Long.toString(intervalMillis));
        arguments.add(Long.toString(keepAlive > 0 ? keepAlive : intervalMillis));
        for (Grant grant : grants) {
            arguments.add(grant.id() + " " + grant.permits() + " " + grant.ageMillis());
        }
        return LuaScripts.WRITE_BACK.<Long>eval(redisson.getScript(ScriptCodec.INSTANCE), limiterName,
                RScript.Mode.READ_WRITE, RedissonCompatibility.LONG, script.keys(limiterName), arguments.toArray());
    }
}
