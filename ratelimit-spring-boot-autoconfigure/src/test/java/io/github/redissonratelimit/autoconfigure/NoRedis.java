package io.github.redissonratelimit.autoconfigure;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.util.concurrent.CompletableFuture;

import org.redisson.api.RFuture;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.Codec;

/**
 * A {@link RedissonClient} with no Redis behind it, for the tests of conditions and wiring, which start no Redis.
 * It is a bean to the auto-configuration, never a connection: it tells its id, and the script warm-up at startup
 * finds nothing to load (its warm-up decisions fail at once, one INFO line, before any decorator sees them). A test
 * that sends a decision through it has no business in a condition test.
 */
public final class NoRedis {

    private NoRedis() {
    }

    @SuppressWarnings("unchecked")
    public static RedissonClient redissonClient() {
        RFuture<String> loaded = mock(RFuture.class);
        when(loaded.toCompletableFuture()).thenReturn(CompletableFuture.completedFuture("loaded"));
        RScript script = mock(RScript.class);
        when(script.scriptLoadAsync(anyString())).thenReturn(loaded);
        RedissonClient client = mock(RedissonClient.class);
        when(client.getId()).thenReturn("no-redis");
        when(client.getScript(any(Codec.class))).thenReturn(script);
        return client;
    }
}
