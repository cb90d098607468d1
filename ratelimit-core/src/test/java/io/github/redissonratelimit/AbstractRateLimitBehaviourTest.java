package io.github.redissonratelimit;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.aop.framework.autoproxy.DefaultAdvisorAutoProxyCreator;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import io.github.redissonratelimit.local.DecisionStacks;
import io.github.redissonratelimit.InvalidRateLimitException;
import io.github.redissonratelimit.RateLimitKeyException;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.interceptor.RateLimitAdvisor;
import io.github.redissonratelimit.interceptor.RateLimitInterceptor;
import io.github.redissonratelimit.key.KeyExpressionParser;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.operation.AnnotationRateLimitOperationSource;
import io.github.redissonratelimit.redis.BackendOptions;
import io.github.redissonratelimit.redis.ConfigChangePolicy;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.test.Calls;
import io.github.redissonratelimit.test.redis.CommandStats;
import io.github.redissonratelimit.test.redis.KeySlot;
import io.github.redissonratelimit.test.redis.RedisDeployment;

/**
 * What the limiter does, on a real Redis: the backend (limits, modes, permits, retry-after, key layout,
 * round trips) and the annotation through the interceptor (keys, meta-annotations, class-level limits,
 * startup validation). Run against a standalone Redis and a Redis Cluster by the subclasses.
 */
abstract class AbstractRateLimitBehaviourTest {

    private static final LimitSpec FIVE_PER_MINUTE = new LimitSpec(5, Duration.ofMinutes(1), RateLimitMode.OVERALL);

    private final LimiterNaming naming = new LimiterNaming();
    private final List<RedissonClient> clients = new ArrayList<>();
    private AnnotationConfigApplicationContext context;

    /** The Redis this suite runs against. */
    protected abstract RedisDeployment redis();

    @BeforeEach
    void flush() {
        redis().flushAll();
    }

    @AfterEach
    void shutdown() {
        if (context != null) {
            context.close();
        }
        clients.forEach(RedissonClient::shutdown);
    }

    private RedissonClient client() {
        RedissonClient client = redis().newRedissonClient();
        clients.add(client);
        return client;
    }

    private static long allowed(RateLimitBackend backend, String name, LimitSpec spec, long permits, int calls) {
        return IntStream.range(0, calls).filter(i -> acquire(backend, name, spec, permits).allowed()).count();
    }

    // ---------------------------------------------------------------- the backend

    @Test
    void allowsRateThenRejects() {
        RateLimitBackend backend = new RedissonRateLimitBackend(client());
        String name = naming.limiterName("order:submit:42");

        assertThat(allowed(backend, name, FIVE_PER_MINUTE, 1, 8)).isEqualTo(5);
    }

    @Test
    void theAsynchronousCallDecidesAlike() {
        RateLimitBackend backend = new RedissonRateLimitBackend(client());
        String name = naming.limiterName("async");

        long allowed = IntStream.range(0, 8)
                .filter(i -> backend.acquire(name, FIVE_PER_MINUTE, 1).toCompletableFuture().join().allowed())
                .count();
        Decision rejected = backend.acquire(name, FIVE_PER_MINUTE, 1).toCompletableFuture().join();

        assertThat(allowed).isEqualTo(5);
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.retryAfter()).isBetween(Duration.ofSeconds(58), Duration.ofSeconds(60));
    }

    @Test
    void keysAreIndependent() {
        RateLimitBackend backend = new RedissonRateLimitBackend(client());

        assertThat(allowed(backend, naming.limiterName("user:a"), FIVE_PER_MINUTE, 1, 7)).isEqualTo(5);
        assertThat(allowed(backend, naming.limiterName("user:b"), FIVE_PER_MINUTE, 1, 7)).isEqualTo(5);
    }

    @Test
    void overallIsSharedBetweenRedissonClients() {
        RateLimitBackend first = new RedissonRateLimitBackend(client());
        RateLimitBackend second = new RedissonRateLimitBackend(client());
        String name = naming.limiterName("shared");

        long fromFirst = allowed(first, name, FIVE_PER_MINUTE, 1, 3);
        long fromSecond = allowed(second, name, FIVE_PER_MINUTE, 1, 5);

        assertThat(fromFirst).isEqualTo(3);
        assertThat(fromSecond).isEqualTo(2);
    }

    @Test
    void perClientGivesEachRedissonClientItsOwnBucket() {
        LimitSpec perClient = new LimitSpec(3, Duration.ofMinutes(1), RateLimitMode.PER_CLIENT);
        RateLimitBackend first = new RedissonRateLimitBackend(client());
        RateLimitBackend second = new RedissonRateLimitBackend(client());
        String name = naming.limiterName("per-client");

        assertThat(allowed(first, name, perClient, 1, 5)).isEqualTo(3);
        assertThat(allowed(second, name, perClient, 1, 5)).isEqualTo(3);
        // and the rejection of a PER_CLIENT limiter reads the client's own grants
        Decision rejected = acquire(first, name, perClient, 1);
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.retryAfter()).isBetween(Duration.ofSeconds(50), Duration.ofSeconds(60));
    }

    @Test
    void permitsPerCallAreCounted() {
        RateLimitBackend backend = new RedissonRateLimitBackend(client());
        String name = naming.limiterName("bulk");
        LimitSpec tenPerMinute = new LimitSpec(10, Duration.ofMinutes(1), RateLimitMode.OVERALL);

        assertThat(allowed(backend, name, tenPerMinute, 4, 5)).isEqualTo(2);
        // 2 permits are left: a call for 2 still fits, one more does not
        assertThat(acquire(backend, name, tenPerMinute, 2).allowed()).isTrue();
        assertThat(acquire(backend, name, tenPerMinute, 1).allowed()).isFalse();
    }

    @Test
    void retryAfterIsTheTimeUntilTheOldestGrantLeavesTheWindow() throws InterruptedException {
        RateLimitBackend backend = new RedissonRateLimitBackend(client());
        String name = naming.limiterName("retry");
        LimitSpec twoPerThreeSeconds = new LimitSpec(2, Duration.ofSeconds(3), RateLimitMode.OVERALL);

        assertThat(acquire(backend, name, twoPerThreeSeconds, 1).allowed()).isTrue();
        Thread.sleep(1_000);
        assertThat(acquire(backend, name, twoPerThreeSeconds, 1).allowed()).isTrue();
        Decision rejected = acquire(backend, name, twoPerThreeSeconds, 1);

        assertThat(rejected.allowed()).isFalse();
        // the first grant is ~1s old: it returns in ~2s, not in the full 3s window
        assertThat(rejected.retryAfter()).isBetween(Duration.ofMillis(1_000), Duration.ofMillis(2_050));

        Thread.sleep(rejected.retryAfter().toMillis() + 50);
        assertThat(acquire(backend, name, twoPerThreeSeconds, 1).allowed()).isTrue();
    }

    @Test
    void retryAfterForSeveralPermitsWaitsForEnoughGrants() throws InterruptedException {
        RateLimitBackend backend = new RedissonRateLimitBackend(client());
        String name = naming.limiterName("retry-bulk");
        LimitSpec threePerFourSeconds = new LimitSpec(3, Duration.ofSeconds(4), RateLimitMode.OVERALL);

        assertThat(acquire(backend, name, threePerFourSeconds, 1).allowed()).isTrue();
        Thread.sleep(1_500);
        assertThat(acquire(backend, name, threePerFourSeconds, 2).allowed()).isTrue();
        Decision rejected = acquire(backend, name, threePerFourSeconds, 2);

        // the oldest grant (1 permit) is not enough for 2: the wait runs to the second grant (~4s)
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.retryAfter()).isBetween(Duration.ofMillis(3_000), Duration.ofMillis(4_050));
    }

    @Test
    void writesTheLayoutRRateLimiterDocuments() {
        RateLimitBackend backend = new RedissonRateLimitBackend(client());
        String name = naming.limiterName("order:submit:42");
        acquire(backend, name, FIVE_PER_MINUTE, 1);

        assertThat(redis().keys("rate_limit*")).containsExactlyInAnyOrder(
                "rate_limit:{order:submit:42}", "rate_limit:{order:submit:42}:value",
                "rate_limit:{order:submit:42}:permits");
        assertThat(redis().string("HGET", name, "rate")).isEqualTo("5");
        assertThat(redis().string("HGET", name, "interval")).isEqualTo("60000");
        assertThat(redis().string("GET", name + ":value")).isEqualTo("4");
        assertThat(redis().number("ZCARD", name + ":permits")).isEqualTo(1);
    }

    @Test
    void oneRoundTripPerDecisionInSteadyState() {
        RateLimitBackend backend = new RedissonRateLimitBackend(client());
        LimitSpec generous = new LimitSpec(1_000, Duration.ofMinutes(1), RateLimitMode.OVERALL);
        String name = naming.limiterName("steady");
        acquire(backend, name, generous, 1); // first sight: writes the config once

        CommandStats before = redis().commandStats();
        int decisions = 200;
        assertThat(allowed(backend, name, generous, 1, decisions)).isEqualTo(decisions);
        CommandStats delta = redis().commandStats().minus(before);

        // commandstats also counts the commands a script runs: one script call per decision, and every
        // other command is one the acquire script runs (no trySetRate, no getConfig, no extra read)
        assertThat(delta.calls("evalsha") + delta.calls("eval")).as("commands: %s", delta).isEqualTo(decisions);
        assertThat(delta.commands()).as("commands: %s", delta).isSubsetOf(
                "evalsha", "eval", "info", "ping", // INFO is this test's own; PING is Redisson's keep-alive
                "cluster", // Redisson's topology scan in cluster mode
                "hmget", "get", "set", "hset", "zrangebyscore", "zremrangebyscore", "zrange", "zadd", "pexpire",
                "pttl", "time", // Redis's clock stamps the grants (ratelimit.clock=redis)
                "zrem"); // a grant replaces its slice's member; a grant that left the window goes
        // the keys' TTL is refreshed when it has dropped by 1/16 of the key TTL, not on every call
        assertThat(delta.calls("pexpire")).as("commands: %s", delta).isZero();
        assertThat(delta.calls("hmget") + delta.calls("get") + delta.calls("zadd") + delta.calls("set"))
                .as("commands: %s", delta).isEqualTo(4L * decisions);
        // the count written to the counter is also written to the config hash, so that a counter written by
        // anyone else (RRateLimiter's release) is noticed and recounted: exactly one such write per decision
        assertThat(delta.calls("hset")).as("commands: %s", delta).isEqualTo(decisions);
        assertThat(delta.calls("time")).as("commands: %s", delta).isEqualTo(decisions);
        // the oldest grants are read once: what left the window, when the next permit returns, lost grants
        assertThat(delta.calls("zrange")).as("commands: %s", delta).isEqualTo(decisions);
    }

    @Test
    void pipelinedDecisionsForLimitersAllOverTheKeySpaceStayExact() throws Exception {
        // one send in flight: 16 threads make every pipeline carry decisions of several limiters, which in a
        // cluster live on different nodes (Redisson splits each pipeline by node)
        RateLimitBackend backend = new RedissonRateLimitBackend(client(),
                new BackendOptions(1_000, Duration.ofHours(1), ConfigChangePolicy.UPDATE, 1, 64));
        LimitSpec spec = new LimitSpec(40, Duration.ofMinutes(1), RateLimitMode.OVERALL);
        List<String> names = IntStream.range(0, 12).mapToObj(i -> naming.limiterName("pipelined:" + i)).toList();
        assertThat(names.stream().map(name -> KeySlot.of(name) * 3 / 16384).distinct().count())
                .as("keys in several thirds of the slot range").isGreaterThan(1);
        names.forEach(name -> assertThat(acquire(backend, name, spec, 1).allowed()).isTrue()); // first sight
        CommandStats before = redis().commandStats();
        int[] granted = Calls.grantedPerKey(16, 60, names.size(),
                limiter -> acquire(backend, names.get(limiter), spec, 1).allowed());
        CommandStats delta = redis().commandStats().minus(before);

        assertThat(granted).as("grants after the first-sight one").containsOnly(40 - 1);
        assertThat(delta.calls("evalsha") + delta.calls("eval")).as("one script call per decision: %s", delta)
                .isEqualTo(16 * 60);
    }

    @Test
    void theLimitsOfOneCallAreDecidedInOneScriptCallAsTheyWouldBeApart() {
        RedissonClient redisson = client();
        RateLimitBackend backend = new RedissonRateLimitBackend(redisson);
        LimitSpec three = new LimitSpec(3, Duration.ofMinutes(1), RateLimitMode.OVERALL);
        String user = naming.limiterName("together:user");
        String region = IntStream.range(0, 1_000_000).mapToObj(i -> naming.limiterName("together:region:" + i))
                .filter(name -> KeySlot.of(name) == KeySlot.of(user)).findFirst().orElseThrow(); // mergeable anywhere
        RedissonRateLimitBackend.loadScripts(redisson).toCompletableFuture().join();
        acquire(backend, naming.limiterName("together:warm-up"), three, 1); // a cluster's first decision waits for its slot map

        CommandStats before = redis().commandStats();
        for (int call = 0; call < 8; call++) {
            List<java.util.concurrent.CompletableFuture<Decision>> decisions = backend.acquireAll(List.of(
                    AcquireRequest.of(user, three, 1), AcquireRequest.of(region, FIVE_PER_MINUTE, 1))).stream()
                    .map(stage -> stage.toCompletableFuture()).toList();
            Decision userDecision = decisions.get(0).join();
            Decision regionDecision = decisions.get(1).join();
            assertThat(userDecision.allowed()).as("user, call %d", call).isEqualTo(call < 3);
            assertThat(regionDecision.allowed()).as("region, call %d", call).isEqualTo(call < 5);
            assertThat(userDecision.state().available()).isEqualTo(Math.max(0, 2 - call));
            assertThat(regionDecision.state().available()).isEqualTo(Math.max(0, 4 - call));
            if (!userDecision.allowed()) {
                assertThat(userDecision.retryAfter()).isBetween(Duration.ofSeconds(55), Duration.ofSeconds(60));
            }
        }
        CommandStats delta = redis().commandStats().minus(before);

        assertThat(delta.calls("evalsha") + delta.calls("eval")).as("one script call per call: %s", delta).isEqualTo(8);
        assertThat(redis().string("GET", user + ":value")).isEqualTo("0");
        assertThat(redis().string("GET", region + ":value")).isEqualTo("0");
    }

    @Test
    void recreatesALimiterWhoseKeysDisappeared() {
        RateLimitBackend backend = new RedissonRateLimitBackend(client());
        String name = naming.limiterName("flushed");
        assertThat(allowed(backend, name, FIVE_PER_MINUTE, 1, 5)).isEqualTo(5);

        redis().flushAll(); // as after expiry or a failover to an empty replica

        assertThat(allowed(backend, name, FIVE_PER_MINUTE, 1, 7)).isEqualTo(5);
    }

    @Test
    void bracesInUserInputKeepEveryKeyOfALimiterInOneSlot() {
        RateLimitBackend backend = new RedissonRateLimitBackend(client());
        LimitSpec twoPerMinute = new LimitSpec(2, Duration.ofMinutes(1), RateLimitMode.OVERALL);
        LimitSpec perClient = new LimitSpec(2, Duration.ofMinutes(1), RateLimitMode.PER_CLIENT);
        String[] hostile = { "}{", "{", "}", "{}", "a{b}c", "x}{y", "{{user}}", "}user{", "{a}{b}", "50% {off}" };

        for (String key : hostile) {
            for (LimitSpec spec : List.of(twoPerMinute, perClient)) {
                String name = naming.limiterName(spec.mode() + ":" + key);
                // the third call is rejected: the acquire script reads :value and :permits together
                assertThat(allowed(backend, name, spec, 1, 3)).as(key).isEqualTo(2);
                Decision rejected = acquire(backend, name, spec, 1);
                assertThat(rejected.retryAfter()).as(key).isBetween(Duration.ofSeconds(55), Duration.ofSeconds(60));
                List<String> keys = redis().keys(name.replace("[", "\\[").replace("*", "\\*") + "*");
                assertThat(keys).as(key).hasSizeGreaterThanOrEqualTo(3)
                        .allSatisfy(stored -> assertThat(KeySlot.of(stored)).isEqualTo(KeySlot.of(name)));
            }
        }
        assertThat(new java.util.HashSet<>(List.of(hostile)).stream().map(key -> naming.limiterName("OVERALL:" + key))
                .distinct().count()).isEqualTo(hostile.length);
    }

    // ---------------------------------------------------------------- the annotation

    /** A plain Spring context (no Boot) wired the way the auto-configuration wires it. */
    private AnnotationConfigApplicationContext start(Class<?>... beans) {
        AnnotationConfigApplicationContext ctx = new AnnotationConfigApplicationContext();
        ctx.registerBean(DefaultAdvisorAutoProxyCreator.class);
        ctx.registerBean(RedissonClient.class, redis()::newRedissonClient, bd -> bd.setDestroyMethodName("shutdown"));
        AnnotationRateLimitOperationSource operations =
                new AnnotationRateLimitOperationSource(new KeyExpressionParser(ctx.getBeanFactory()));
        ctx.registerBean(RateLimitAdvisor.class, () -> new RateLimitAdvisor(operations, new RateLimitInterceptor(
                operations, () -> DecisionStacks.around(new RedissonRateLimitBackend(ctx.getBean(RedissonClient.class))))));
        ctx.registerBean("tenants", Tenants.class);
        for (Class<?> bean : beans) {
            ctx.registerBean(bean);
        }
        ctx.refresh();
        this.context = ctx;
        return ctx;
    }

    private static int allowedOf(int calls, Callable<?> call) {
        return Calls.succeeding(calls, call, RateLimitExceededException.class);
    }

    @Test
    void limitsPerArgumentByName() {
        Orders orders = start(Orders.class).getBean(Orders.class);

        assertThat(allowedOf(4, () -> orders.submit("alice", 1))).isEqualTo(2);
        assertThat(allowedOf(4, () -> orders.submit("bob", 1))).isEqualTo(2);
        assertThat(orders.submitted()).isEqualTo(4);
    }

    @Test
    void userInputWithBracesIsItsOwnLimit() {
        Orders orders = start(Orders.class).getBean(Orders.class);

        for (String user : new String[] { "}{", "{alice}", "alice", "a}{b", "{" }) {
            assertThat(allowedOf(3, () -> orders.submit(user, 1))).as(user).isEqualTo(2);
        }
        assertThat(redis().number("EXISTS", "rate_limit:{order:%7Balice%7D}")).isEqualTo(1);
        assertThat(redis().number("EXISTS", "rate_limit:{order:%7D%7B}:permits")).isEqualTo(1);
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
        assertThat(redis().number("EXISTS", "rate_limit:{idx:x:y}")).isEqualTo(1);
        assertThat(redis().number("EXISTS", "rate_limit:{tenant:acme}")).isEqualTo(1);
    }

    @Test
    void metaAnnotationWorks() {
        Orders orders = start(Orders.class).getBean(Orders.class);

        assertThat(allowedOf(4, () -> orders.byMeta("dave"))).isEqualTo(2);
        assertThat(redis().number("EXISTS", "rate_limit:{meta:dave}")).isEqualTo(1);
    }

    @Test
    void emptyKeyIsOneLimitForTheMethod() {
        Orders orders = start(Orders.class).getBean(Orders.class);

        assertThat(allowedOf(4, orders::global)).isEqualTo(2);
        assertThat(redis().number("EXISTS", "rate_limit:{" + Orders.class.getName() + ".global}")).isEqualTo(1);
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

        @RateLimit(key = "#first + #second", rate = 1)
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
