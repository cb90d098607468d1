package io.github.redissonratelimit.autoconfigure;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

import io.github.redissonratelimit.lease.LeaseCounts;
import io.github.redissonratelimit.limiter.DelegatingRateLimitBackend;
import io.github.redissonratelimit.limiter.RateLimitBackend;

/**
 * Backends for the wiring tests, which only look at which backend wraps which: written against no method of
 * {@link RateLimitBackend}, so they hold whatever shape its methods have.
 */
public final class TestBackends {

    private TestBackends() {
    }

    /** A backend that must not be asked anything. */
    public static RateLimitBackend unused() {
        return proxy(new Wrapping(null));
    }

    /** A backend that hands every call to {@code delegate}. */
    public static RateLimitBackend wrapping(RateLimitBackend delegate) {
        return proxy(new Wrapping(delegate));
    }

    /** What {@code backend} wraps, if it is one of {@link #wrapping}; else null. */
    public static RateLimitBackend wrappedBy(RateLimitBackend backend) {
        return Proxy.isProxyClass(backend.getClass()) && Proxy.getInvocationHandler(backend) instanceof Wrapping wrapping
                ? wrapping.delegate : null;
    }

    /**
     * The layers of a composed backend, outermost first, as far as each says what it wraps (tests only: the library
     * itself never looks through a composed backend).
     */
    public static List<RateLimitBackend> layers(RateLimitBackend backend) {
        List<RateLimitBackend> layers = new ArrayList<>();
        for (RateLimitBackend layer = backend; layer != null; layer = layer instanceof DelegatingRateLimitBackend
                delegating ? delegating.getDelegate() : wrappedBy(layer)) {
            layers.add(layer);
        }
        return layers;
    }

    /** The layer of {@code type} in the composed {@code backend}. */
    public static <T extends RateLimitBackend> T layer(RateLimitBackend backend, Class<T> type) {
        return layers(backend).stream().filter(type::isInstance).map(type::cast).findFirst()
                .orElseThrow(() -> new AssertionError("no " + type.getSimpleName() + " in " + layers(backend)));
    }

    /** The types of the layers of {@code backend}, outermost first. */
    /** The permits a lease layer may still spend from memory on the limiter, as {@link LeaseCounts} tells it. */
    public static long heldPermits(LeaseCounts leases, String limiterName) {
        LeaseCounts.Holding holding = leases.holding(limiterName);
        return holding == null ? 0 : holding.permits();
    }

    public static List<Class<?>> layerTypes(RateLimitBackend backend) {
        return layers(backend).stream().<Class<?>>map(layer -> Proxy.isProxyClass(layer.getClass())
                ? TestBackends.class : layer.getClass()).toList();
    }

    private static RateLimitBackend proxy(Wrapping handler) {
        return (RateLimitBackend) Proxy.newProxyInstance(TestBackends.class.getClassLoader(),
                new Class<?>[] { RateLimitBackend.class }, handler);
    }

    private record Wrapping(RateLimitBackend delegate) implements InvocationHandler {

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            if (method.getDeclaringClass() == Object.class) {
                return switch (method.getName()) {
                    case "equals" -> proxy == args[0];
                    case "hashCode" -> System.identityHashCode(proxy);
                    default -> "TestBackends" + (delegate == null ? ".unused" : ".wrapping(" + delegate + ")");
                };
            }
            if (delegate == null) {
                throw new AssertionError("a wiring test asked the backend: " + method.getName());
            }
            try {
                return method.invoke(delegate, args);
            }
            catch (InvocationTargetException ex) {
                throw ex.getCause();
            }
        }
    }
}
