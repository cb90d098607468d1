package io.github.redissonratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.autoconfigure.actuate.observability.AutoConfigureObservability;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import io.github.redissonratelimit.autoconfigure.routes.RouteTable;
import io.github.redissonratelimit.interceptor.KeyedLimit;
import io.github.redissonratelimit.interceptor.RateLimitDecider;
import io.github.redissonratelimit.interceptor.RateLimitDecision;
import io.github.redissonratelimit.interceptor.RateLimitInterceptor;
import io.github.redissonratelimit.operation.RateLimitOperation;
import io.github.redissonratelimit.test.redis.CommandStats;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * {@code GET /catalog/search}, one limit of 1,000 a second with a lease, on two instances of the sample as
 * docs/routes.md starts them: this test's, and a second one given the first's embedded Redis by
 * {@code spring.data.redis.port}. Over HTTP each answers with the limit's policy; then 4 callers on each search for
 * 2 s on the route's own decision stack, as its filter asks it (HTTP on a loaded test machine cannot send more than
 * 1,000 a second). Each search passed is written down with the time it was asked and answered: its permit was spent
 * in between, so a window of 1 s that holds its whole span holds its spend. A context of its own, with its own
 * embedded Redis (the property that names it keeps it out of the cached one SampleApplicationTest shares): the second
 * instance reports itself to the first through Redis, and when it reports that it decided in memory, the others keep
 * every limiter to its share for an interval (LocalFallback), which other tests on that Redis would meet.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "ratelimit.backend-timeout=5s", "sample.test-context=catalog-search" })
@AutoConfigureObservability(tracing = false)
class CatalogSearchTest {

    private static final int CALLERS_PER_INSTANCE = 4;

    private final HttpClient http = HttpClient.newHttpClient();

    @Autowired
    private ConfigurableApplicationContext first;

    /**
     * No window of 1 s holds more than 1,000 searches passed on the two instances together, 2 s pass at least 1,000,
     * and Redis ran at most one script per 10 searches passed.
     */
    @Test
    void twoInstancesAdmitAtMostTheLimitInAnySecondWithFewScriptCalls() throws Exception {
        int redisPort = first.getEnvironment().getProperty("spring.data.redis.port", Integer.class);
        try (ConfigurableApplicationContext second = new SpringApplicationBuilder(SampleApplication.class).run(
                "--server.port=0", "--spring.data.redis.port=" + redisPort, "--ratelimit.backend-timeout=5s",
                "--spring.main.banner-mode=off")) {
            for (ApplicationContext instance : List.of(first, second)) {
                HttpResponse<String> search = search(instance);
                assertThat(search.statusCode()).isEqualTo(200);
                assertThat(search.headers().firstValue("RateLimit-Policy")).hasValue("\"catalog-search\";q=1000;w=1");
            }
            long scriptsBefore = scripts(redisPort);
            List<long[]> passed = Collections.synchronizedList(new ArrayList<>());
            AtomicInteger refused = new AtomicInteger();
            long end = System.nanoTime() + Duration.ofSeconds(2).toNanos();
            ExecutorService callers = Executors.newFixedThreadPool(2 * CALLERS_PER_INSTANCE);
            try {
                List<Future<?>> running = new ArrayList<>();
                for (ApplicationContext instance : List.of(first, second)) {
                    RateLimitOperation route = instance.getBean(RouteTable.class).operations().stream()
                            .filter(operation -> operation.name().equals("catalog-search")).findFirst().orElseThrow();
                    assertThat(route.lease()).isEqualTo(Duration.ofMillis(100));
                    RateLimitDecider decider = instance.getBean(RateLimitInterceptor.class).decider();
                    for (int caller = 0; caller < CALLERS_PER_INSTANCE; caller++) {
                        running.add(callers.submit(() -> {
                            while (System.nanoTime() < end) {
                                long asked = System.nanoTime();
                                RateLimitDecision decision = decider.decide(List.of(new KeyedLimit(route,
                                        "catalog-search", 1))).toCompletableFuture().join();
                                if (decision.passed()) {
                                    passed.add(new long[] { asked, System.nanoTime() });
                                }
                                else {
                                    refused.incrementAndGet();
                                }
                            }
                            return null;
                        }));
                    }
                }
                for (Future<?> caller : running) {
                    caller.get();
                }
            }
            finally {
                callers.shutdownNow();
            }
            long scripts = scripts(redisPort) - scriptsBefore;

            long most = mostInAnySecond(passed);
            String figures = passed.size() + " passed, " + refused.get() + " refused in 2 s on 2 instances, "
                    + scripts + " script calls, at most " + most + " in one second";
            System.out.println("[catalog-search] " + figures);
            assertThat(refused.get()).as("demand over the limit: %s", figures).isPositive();
            assertThat(most).as("searches passed in one second: %s", figures).isBetween(1L, 1000L);
            assertThat(passed).as("close to the limit: %s", figures).hasSizeGreaterThanOrEqualTo(1000);
            assertThat(scripts).as("script calls: %s", figures).isLessThanOrEqualTo(passed.size() / 10);
        }
    }

    private HttpResponse<String> search(ApplicationContext instance) throws Exception {
        URI uri = URI.create("http://localhost:" + instance.getEnvironment().getProperty("local.server.port")
                + "/catalog/search?q=lamp");
        return http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The most searches whose whole span (asked, answered) lies in one window of 1 s. */
    private static long mostInAnySecond(List<long[]> passed) {
        List<long[]> spans = passed.stream().sorted(Comparator.comparingLong(span -> span[0])).toList();
        long most = 0;
        for (int i = 0; i < spans.size(); i++) {
            long windowEnd = spans.get(i)[0] + Duration.ofSeconds(1).toNanos();
            long inside = 0;
            for (int j = i; j < spans.size() && spans.get(j)[0] < windowEnd; j++) {
                inside += spans.get(j)[1] <= windowEnd ? 1 : 0;
            }
            most = Math.max(most, inside);
        }
        return most;
    }

    private static long scripts(int redisPort) {
        try (RespClient redis = new RespClient("127.0.0.1", redisPort)) {
            CommandStats stats = CommandStats.read(redis);
            return stats.calls("evalsha") + stats.calls("eval");
        }
    }
}
