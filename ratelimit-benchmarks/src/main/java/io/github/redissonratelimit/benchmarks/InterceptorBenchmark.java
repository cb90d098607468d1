package io.github.redissonratelimit.benchmarks;

import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.aopalliance.intercept.MethodInvocation;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.springframework.aop.framework.ProxyFactory;

import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.interceptor.RateLimitAdvisor;
import io.github.redissonratelimit.interceptor.RateLimitInterceptor;
import io.github.redissonratelimit.key.KeyExpressionParser;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.LocalRejectionCache;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.limiter.WaitingRateLimitBackend;
import io.github.redissonratelimit.local.InstanceCount;
import io.github.redissonratelimit.local.LocalFallback;
import io.github.redissonratelimit.local.LocalOutagePolicy;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.operation.AnnotationRateLimitOperationSource;

/**
 * What the interceptor costs without Redis: operation lookup, {@code #userId} key evaluation, limiter
 * naming and the local rejection lookup, on a backend that allows everything in memory; and what a
 * rejection answered from memory costs.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class InterceptorBenchmark {

    /** Allows every call without any I/O: what is left is the interceptor's own work. */
    private static final CompletableFuture<Decision> ALLOWED = CompletableFuture.completedFuture(Decision.allow());
    static final RateLimitBackend ALLOW_ALL = request -> ALLOWED;

    private AnnotatedService target;
    private RateLimitInterceptor interceptor;
    private RateLimitInterceptor interceptorWithLocalRejection;
    private RateLimitInterceptor withoutLocalPolicy;
    private AnnotatedService proxy;
    private AnnotatedService rejectingProxy;
    private LocalRejectionCache rejectedFromMemory;
    private final String[] limiterNames = new String[Users.COUNT];
    private final LimitSpec spec = new LimitSpec(Limits.FLOOD_RATE, Duration.ofSeconds(1), RateLimitMode.OVERALL);
    private Method method;
    private int user;

    @Setup(Level.Trial)
    public void setUp() throws NoSuchMethodException {
        target = new AnnotatedService();
        method = AnnotatedService.class.getMethod("decide", String.class);
        interceptor = newInterceptor(ALLOW_ALL);
        interceptorWithLocalRejection = newInterceptor(new LocalRejectionCache(ALLOW_ALL, 10_000));
        withoutLocalPolicy = newInterceptor(new LocalRejectionCache(ALLOW_ALL, 10_000));
        withoutLocalPolicy.setDefaultBackendErrorPolicy(BackendErrorPolicy.ALLOW);

        AnnotationRateLimitOperationSource operations = new AnnotationRateLimitOperationSource(new KeyExpressionParser());
        ProxyFactory factory = new ProxyFactory(target);
        factory.setProxyTargetClass(true);
        factory.addAdvisor(new RateLimitAdvisor(operations, interceptorWithLocalRejection));
        proxy = (AnnotatedService) factory.getProxy();

        // Redis answered "no permit for an hour" once per user: every later call is rejected from memory
        rejectedFromMemory = new LocalRejectionCache(request -> CompletableFuture.completedFuture(Decision.reject(Duration.ofHours(1))),
                10_000);
        LimiterNaming naming = new LimiterNaming();
        for (int i = 0; i < Users.COUNT; i++) {
            limiterNames[i] = naming.limiterName(Users.id(i));
            rejectedFromMemory.acquire(limiterNames[i], spec, 1);
        }
        RateLimitInterceptor rejecting = newInterceptor(rejectedFromMemory);
        ProxyFactory rejectingFactory = new ProxyFactory(new AnnotatedService());
        rejectingFactory.setProxyTargetClass(true);
        rejectingFactory.addAdvisor(new RateLimitAdvisor(operations, rejecting));
        rejectingProxy = (AnnotatedService) rejectingFactory.getProxy();
        for (int i = 0; i < Users.COUNT; i++) {
            springProxyRejectedFromMemory();
        }
    }

    /** The interceptor over {@code backend} with the layers the auto-configuration puts above it: wait, outage policy. */
    private static RateLimitInterceptor newInterceptor(RateLimitBackend backend) {
        RateLimitBackend stack = new LocalOutagePolicy(new WaitingRateLimitBackend(backend),
                new LocalFallback(InstanceCount.fixed(1, 0), 10_000));
        return new RateLimitInterceptor(new AnnotationRateLimitOperationSource(new KeyExpressionParser()), stack);
    }

    private String nextUser() {
        user = user + 1 == Users.COUNT ? 0 : user + 1;
        return Users.id(user);
    }

    /** The method alone, for reference. */
    @Benchmark
    public String directCall() {
        return target.decide(nextUser());
    }

    /** {@link RateLimitInterceptor#invoke} on an in-memory backend. */
    @Benchmark
    public Object interceptor() throws Throwable {
        return interceptor.invoke(new DirectInvocation(target, method, nextUser()));
    }

    /** The same with the local rejection lookup in front of the backend (the default wiring). */
    @Benchmark
    public Object interceptorWithLocalRejection() throws Throwable {
        return interceptorWithLocalRejection.invoke(new DirectInvocation(target, method, nextUser()));
    }

    /**
     * The default wiring with {@code ratelimit.on-backend-error=allow}: no in-memory record of the grants, which the
     * default outage policy {@code local} keeps for when Redis gives no decision. What that record costs.
     */
    @Benchmark
    public Object interceptorWithoutLocalPolicy() throws Throwable {
        return withoutLocalPolicy.invoke(new DirectInvocation(target, method, nextUser()));
    }

    /** The whole call through a Spring (CGLIB) proxy with the rate limit advisor. */
    @Benchmark
    public String springProxy() {
        return proxy.decide(nextUser());
    }

    /** A rejection answered by the local rejection cache, without the interceptor. */
    @Benchmark
    public Object localRejection() {
        user = user + 1 == Users.COUNT ? 0 : user + 1;
        return rejectedFromMemory.acquire(limiterNames[user], spec, 1);
    }

    /** The same through the Spring proxy, which throws {@link RateLimitExceededException}. */
    @Benchmark
    public Object springProxyRejectedFromMemory() {
        try {
            return rejectingProxy.decide(nextUser());
        }
        catch (RateLimitExceededException ex) {
            return ex;
        }
    }

    /** A method invocation that proceeds by calling the target directly, without reflection. */
    private static final class DirectInvocation implements MethodInvocation {

        private final AnnotatedService target;
        private final Method method;
        private final Object[] arguments;

        DirectInvocation(AnnotatedService target, Method method, String userId) {
            this.target = target;
            this.method = method;
            this.arguments = new Object[] { userId };
        }

        @Override
        public Method getMethod() {
            return method;
        }

        @Override
        public Object[] getArguments() {
            return arguments;
        }

        @Override
        public Object proceed() {
            return target.decide((String) arguments[0]);
        }

        @Override
        public Object getThis() {
            return target;
        }

        @Override
        public AccessibleObject getStaticPart() {
            return method;
        }
    }
}
