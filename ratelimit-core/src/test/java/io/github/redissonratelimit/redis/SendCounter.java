package io.github.redissonratelimit.redis;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.LongAdder;

import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;

/**
 * Counts the round trips an {@link AcquirePipeline} makes, from outside: it wraps the client the pipeline is given,
 * counting each pipeline it creates ({@code createBatch}) and each script call sent on its own (an {@code eval*}
 * of an {@link RScript} obtained from the client, not of a batch).
 */
final class SendCounter {

    private final LongAdder sends = new LongAdder();
    private final RedissonClient client;

    SendCounter(RedissonClient real) {
        this.client = proxy(RedissonClient.class, real, (proxy, method, args) -> {
            Object result = invoke(method, real, args);
            if (method.getName().equals("createBatch")) {
                sends.increment();
            }
            else if (method.getName().equals("getScript") && result instanceof RScript script) {
                return proxy(RScript.class, script, (scriptProxy, scriptMethod, scriptArgs) -> {
                    if (scriptMethod.getName().startsWith("eval")) {
                        sends.increment();
                    }
                    return invoke(scriptMethod, script, scriptArgs);
                });
            }
            return result;
        });
    }

    /** The client to give the pipeline. */
    RedissonClient client() {
        return client;
    }

    /** Round trips made so far: single calls and pipelines. */
    long sends() {
        return sends.sum();
    }

    private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        }
        catch (InvocationTargetException ex) {
            throw ex.getCause();
        }
    }

    private static <T> T proxy(Class<T> type, T target, InvocationHandler handler) {
        return type.cast(Proxy.newProxyInstance(SendCounter.class.getClassLoader(), new Class<?>[] { type }, handler));
    }
}
