package io.github.redissonratelimit.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.aop.framework.autoproxy.DefaultAdvisorAutoProxyCreator;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.key.KeyExpressionParser;
import io.github.redissonratelimit.key.LimiterNaming;
import io.github.redissonratelimit.key.RateLimitKeyException;
import io.github.redissonratelimit.limiter.RedissonRateLimitBackend;
import io.github.redissonratelimit.operation.AnnotationRateLimitOperationSource;
import io.github.redissonratelimit.operation.InvalidRateLimitException;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RespClient;
import org.redisson.api.RedissonClient;

@ExtendWith(RealRedisExtension.class)
class RateLimitInterceptorTest {

    private RedisEndpoint redis;
    private AnnotationConfigApplicationContext context;

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        this.redis = redis;
        redis.flushAll();
    }

    @AfterEach
    void close() {
        if (context != null) {
            context.close();
        }
    }

    /** A plain Spring context (no Boot) wired the way the auto-configuration wires it. */
    private AnnotationConfigApplicationContext start(Class<?>... beans) {
        AnnotationConfigApplicationContext ctx = new AnnotationConfigApplicationContext();
        ctx.registerBean(DefaultAdvisorAutoProxyCreator.class);
        ctx.registerBean(RedissonClient.class, redis::newRedissonClient, bd -> bd.setDestroyMethodName("shutdown"));
        ctx.registerBean(RateLimitAdvisor.class, () -> new RateLimitAdvisor(
                new AnnotationRateLimitOperationSource(new KeyExpressionParser(ctx.getBeanFactory())),
                () -> new RateLimitInterceptor(
                        new AnnotationRateLimitOperationSource(new KeyExpressionParser(ctx.getBeanFactory())),
                        new LimiterNaming(), new RedissonRateLimitBackend(ctx.getBean(RedissonClient.class)))));
        ctx.registerBean("tenants", Tenants.class);
        for (Class<?> bean : beans) {
            ctx.registerBean(bean);
        }
        ctx.refresh();
        this.context = ctx;
        return ctx;
    }

    private static int allowedOf(int calls, Callable<?> call) {
        return (int) IntStream.range(0, calls).filter(i -> {
            try {
                call.call();
                return true;
            }
            catch (RateLimitExceededException ex) {
                return false;
            }
            catch (Exception ex) {
                throw new IllegalStateException(ex);
            }
        }).count();
    }

    @Test
    void limitsPerArgumentByName() {
        Orders orders = start(Orders.class).getBean(Orders.class);

        assertThat(allowedOf(4, () -> orders.submit("alice", 1))).isEqualTo(2);
        assertThat(allowedOf(4, () -> orders.submit("bob", 1))).isEqualTo(2);
        assertThat(orders.submitted()).isEqualTo(4);
    }

    @Test
    void rejectionCarriesLimitKeyAndRetryAfter() {
        Orders orders = start(Orders.class).getBean(Orders.class);
        orders.submit("carol", 1);
        orders.submit("carol", 1);

        assertThatThrownBy(() -> orders.submit("carol", 1))
                .isInstanceOfSatisfying(RateLimitExceededException.class, ex -> {
                    assertThat(ex.getMessage()).isEqualTo("Too many orders");
                    assertThat(ex.getKey()).isEqualTo("order:carol");
                    assertThat(ex.getLimiterName()).isEqualTo("rate_limit:{order:carol}");
                    assertThat(ex.getLimit().rate()).isEqualTo(2);
                    assertThat(ex.getRetryAfterSeconds()).isBetween(55L, 60L);
                });
    }

    @Test
    void resolvesArgumentsByIndexAndBeans() {
        Orders orders = start(Orders.class).getBean(Orders.class);

        assertThat(allowedOf(3, () -> orders.byIndex("x", "y"))).isEqualTo(2);
        assertThat(allowedOf(3, () -> orders.byBean())).isEqualTo(2);
        try (RespClient cli = redis.cli()) {
            assertThat(cli.number("EXISTS", "rate_limit:{idx:x:y}")).isEqualTo(1);
            assertThat(cli.number("EXISTS", "rate_limit:{tenant:acme}")).isEqualTo(1);
        }
    }

    @Test
    void metaAnnotationWorks() {
        Orders orders = start(Orders.class).getBean(Orders.class);

        assertThat(allowedOf(4, () -> orders.byMeta("dave"))).isEqualTo(2);
        try (RespClient cli = redis.cli()) {
            assertThat(cli.number("EXISTS", "rate_limit:{meta:dave}")).isEqualTo(1);
        }
    }

    @Test
    void emptyKeyIsOneLimitForTheMethod() {
        Orders orders = start(Orders.class).getBean(Orders.class);

        assertThat(allowedOf(4, orders::global)).isEqualTo(2);
        try (RespClient cli = redis.cli()) {
            assertThat(cli.number("EXISTS", "rate_limit:{" + Orders.class.getName() + ".global}")).isEqualTo(1);
        }
    }

    @Test
    void permitsPerCall() {
        Orders orders = start(Orders.class).getBean(Orders.class);

        assertThat(allowedOf(3, orders::bulk)).isEqualTo(2);
    }

    @Test
    void nullKeyIsAClearErrorAndTheMethodDoesNotRun() {
        Orders orders = start(Orders.class).getBean(Orders.class);

        assertThatThrownBy(() -> orders.lookup(null))
                .isInstanceOf(RateLimitKeyException.class)
                .hasMessageContaining("\"#userId\"")
                .hasMessageContaining(Orders.class.getName() + ".lookup(String)")
                .hasMessageContaining("evaluated to null");
        assertThatThrownBy(() -> orders.lookup(" "))
                .isInstanceOf(RateLimitKeyException.class).hasMessageContaining("empty key");
        assertThat(orders.submitted()).isZero();
    }

    @Test
    void classLevelAnnotationIsOneLimitForThePublicMethodsOfTheClass() {
        ClassLimited limited = start(ClassLimited.class).getBean(ClassLimited.class);

        assertThat(allowedOf(1, limited::first) + allowedOf(3, limited::second)).isEqualTo(2);
        assertThat(limited.overridden()).isEqualTo("not limited by the class");
    }

    @Test
    void annotationOnAnInterfaceMethodApplies() {
        Api api = start(ApiImpl.class).getBean(Api.class);

        assertThat(AopUtils.isAopProxy(api)).isTrue();
        assertThat(allowedOf(3, () -> api.call("k"))).isEqualTo(1);
    }

    @Test
    void invalidDeclarationsFailAtStartupNamingMethodAndAttribute() {
        assertStartupFails(ZeroRate.class, "ZeroRate.call()", "rate is not set");
        assertStartupFails(NegativeRate.class, "NegativeRate.call()", "rate must be greater than 0 but was -1");
        assertStartupFails(UnknownParameter.class, "UnknownParameter.call(String)",
                "refers to #usrId, which the method does not have");
        assertStartupFails(PermitsAboveRate.class, "PermitsAboveRate.call()", "permits (5) exceeds rate (2)");
        assertStartupFails(BadSpel.class, "BadSpel.call(String)", "key \"'unclosed + #id\" is not valid SpEL");
        assertStartupFails(BadWindow.class, "BadWindow.call()", "window 'soon' is not a duration");
    }

    private void assertStartupFails(Class<?> bean, String method, String problem) {
        assertThatThrownBy(() -> start(bean))
                .isInstanceOf(BeanCreationException.class)
                .satisfies(ex -> assertThat(causeOfType(ex, InvalidRateLimitException.class))
                        .hasMessageContaining(method)
                        .hasMessageContaining(problem)
                        .hasMessageContaining("Fix:"));
    }

    private static Throwable causeOfType(Throwable ex, Class<? extends Throwable> type) {
        for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
            if (type.isInstance(cause)) {
                return cause;
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " in the causes of " + ex, ex);
    }

    public static class Tenants {
        public String current() {
            return "acme";
        }
    }

    @Target({ElementType.METHOD, ElementType.TYPE})
    @Retention(RetentionPolicy.RUNTIME)
    @RateLimit(key = "'meta:' + #userId", rate = 2, interval = 60)
    public @interface OrderLimit {
    }

    public static class Orders {

        private final AtomicInteger submitted = new AtomicInteger();

        public int submitted() {
            return submitted.get();
        }

        @RateLimit(key = "#userId", rate = 2, interval = 60)
        public String lookup(String userId) {
            submitted.incrementAndGet();
            return userId;
        }

        @RateLimit(key = "'order:' + #userId", rate = 2, interval = 60, message = "Too many orders")
        public String submit(String userId, int quantity) {
            submitted.incrementAndGet();
            return "ok";
        }

        @RateLimit(key = "'idx:' + #p0 + ':' + #a1", rate = 2, interval = 1, unit = java.util.concurrent.TimeUnit.MINUTES)
        public String byIndex(String first, String second) {
            return first + second;
        }

        @RateLimit(key = "first + second", rate = 1)
        public String unused(String first, String second) {
            return first;
        }

        @RateLimit(key = "'tenant:' + @tenants.current()", rate = 2, window = "1m")
        public String byBean() {
            return "ok";
        }

        @OrderLimit
        public String byMeta(String userId) {
            return userId;
        }

        @RateLimit(rate = 2, interval = 60)
        public String global() {
            return "ok";
        }

        @RateLimit(rate = 5, interval = 60, permits = 2)
        public String bulk() {
            return "ok";
        }
    }

    @RateLimit(rate = 2, interval = 60)
    public static class ClassLimited {

        public String first() {
            return "first";
        }

        public String second() {
            return "second";
        }

        @RateLimit(rate = 100, interval = 60, name = "own")
        public String overridden() {
            return "not limited by the class";
        }
    }

    public interface Api {
        @RateLimit(key = "#id", rate = 1, interval = 60)
        String call(String id);
    }

    public static class ApiImpl implements Api {
        @Override
        public String call(String id) {
            return id;
        }
    }

    public static class ZeroRate {
        @RateLimit(rate = 0)
        public void call() {
        }
    }

    public static class NegativeRate {
        @RateLimit(rate = -1)
        public void call() {
        }
    }

    public static class UnknownParameter {
        @RateLimit(key = "'user:' + #usrId", rate = 2)
        public void call(String userId) {
        }
    }

    public static class PermitsAboveRate {
        @RateLimit(rate = 2, permits = 5)
        public void call() {
        }
    }

    public static class BadSpel {
        @RateLimit(key = "'unclosed + #id", rate = 2)
        public void call(String id) {
        }
    }

    public static class BadWindow {
        @RateLimit(rate = 2, window = "soon")
        public void call() {
        }
    }
}
