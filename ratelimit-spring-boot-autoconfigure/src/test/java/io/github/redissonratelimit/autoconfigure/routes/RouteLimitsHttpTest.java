package io.github.redissonratelimit.autoconfigure.routes;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.redisson.api.RedissonClient;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.reactive.ReactiveManagementContextAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementContextAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.servlet.ServletManagementContextAutoConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.http.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.autoconfigure.http.codec.CodecsAutoConfiguration;
import org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration;
import org.springframework.boot.autoconfigure.web.reactive.HttpHandlerAutoConfiguration;
import org.springframework.boot.autoconfigure.web.reactive.ReactiveWebServerFactoryAutoConfiguration;
import org.springframework.boot.autoconfigure.web.reactive.WebFluxAutoConfiguration;
import org.springframework.boot.autoconfigure.web.servlet.DispatcherServletAutoConfiguration;
import org.springframework.boot.autoconfigure.web.servlet.ServletWebServerFactoryAutoConfiguration;
import org.springframework.boot.autoconfigure.web.servlet.WebMvcAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.autoconfigure.actuate.RateLimitEndpointAutoConfiguration;
import io.github.redissonratelimit.test.redis.FreshRedis;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * {@code ratelimit.routes} over real HTTP on Spring MVC (Tomcat) and WebFlux (Netty), on a real Redis: limits without
 * annotations, keyed by the request, the 429 problem and headers, no spoofing through X-Forwarded-For, charging by
 * response status, a 400 for a request without a key, and the routes listed and reset by the actuator endpoint.
 */
@ExtendWith(OutputCaptureExtension.class)
class RouteLimitsHttpTest {

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final RedisEndpoint redis = fresh.endpoint();

    private final HttpClient http = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();

    @RestController
    static class Api {

        @GetMapping("/api/hello")
        String hello() {
            return "hello";
        }

        @GetMapping("/other")
        String other() {
            return "other";
        }

        @PostMapping("/login")
        ResponseEntity<String> login(@RequestParam String user, @RequestParam String password) {
            return "demo".equals(password) ? ResponseEntity.ok("welcome " + user)
                    : ResponseEntity.status(HttpStatus.UNAUTHORIZED).body("bad credentials");
        }

        @PostMapping("/login-later")
        CompletableFuture<ResponseEntity<String>> loginLater(@RequestParam String user, @RequestParam String password) {
            return CompletableFuture.supplyAsync(() -> login(user, password));
        }

        @GetMapping("/keyed/{id}")
        String keyed(@PathVariable String id) {
            return id;
        }
    }

    /** Stands in for an authentication filter that runs before the routes: the principal from X-Principal. */
    static final class PrincipalFilter extends org.springframework.web.filter.OncePerRequestFilter {

        @Override
        protected void doFilterInternal(jakarta.servlet.http.HttpServletRequest request,
                jakarta.servlet.http.HttpServletResponse response, jakarta.servlet.FilterChain chain)
                throws jakarta.servlet.ServletException, IOException {
            String name = request.getHeader("X-Principal");
            chain.doFilter(name == null ? request : new jakarta.servlet.http.HttpServletRequestWrapper(request) {
                @Override
                public java.security.Principal getUserPrincipal() {
                    return () -> name;
                }
            }, response);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ServletPrincipal {

        @org.springframework.context.annotation.Bean
        org.springframework.boot.web.servlet.FilterRegistrationBean<PrincipalFilter> principalFilter() {
            org.springframework.boot.web.servlet.FilterRegistrationBean<PrincipalFilter> registration =
                    new org.springframework.boot.web.servlet.FilterRegistrationBean<>(new PrincipalFilter());
            registration.setOrder(-120);
            return registration;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ReactivePrincipal {

        @org.springframework.context.annotation.Bean
        org.springframework.web.server.WebFilter principalFilter() {
            return new OrderedPrincipalWebFilter();
        }
    }

    static final class OrderedPrincipalWebFilter implements org.springframework.web.server.WebFilter,
            org.springframework.core.Ordered {

        @Override
        public reactor.core.publisher.Mono<Void> filter(org.springframework.web.server.ServerWebExchange exchange,
                org.springframework.web.server.WebFilterChain chain) {
            String name = exchange.getRequest().getHeaders().getFirst("X-Principal");
            return chain.filter(name == null ? exchange : exchange.mutate()
                    .principal(reactor.core.publisher.Mono.just((java.security.Principal) () -> name)).build());
        }

        @Override
        public int getOrder() {
            return -120;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @Import(Api.class)
    static class Meters {

        @org.springframework.context.annotation.Bean
        io.micrometer.core.instrument.MeterRegistry meterRegistry() {
            return new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @Import(Meters.class)
    @ImportAutoConfiguration({ RateLimitAutoConfiguration.class, RateLimitRoutesAutoConfiguration.class,
            io.github.redissonratelimit.autoconfigure.metrics.RateLimitMetricsAutoConfiguration.class,
            RateLimitEndpointAutoConfiguration.class, EndpointAutoConfiguration.class,
            WebEndpointAutoConfiguration.class, ManagementContextAutoConfiguration.class,
            JacksonAutoConfiguration.class })
    static class Common {
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ ServletWebServerFactoryAutoConfiguration.class,
            DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class,
            HttpMessageConvertersAutoConfiguration.class, ServletManagementContextAutoConfiguration.class })
    @Import(ServletPrincipal.class)
    static class Servlet {
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ ReactiveWebServerFactoryAutoConfiguration.class, HttpHandlerAutoConfiguration.class,
            WebFluxAutoConfiguration.class, CodecsAutoConfiguration.class,
            ReactiveManagementContextAutoConfiguration.class })
    @Import(ReactivePrincipal.class)
    static class Reactive {
    }

    private ConfigurableApplicationContext start(WebApplicationType type) {
        return new SpringApplicationBuilder(Common.class, type == WebApplicationType.SERVLET ? Servlet.class
                : Reactive.class).web(type)
                .initializers(context -> ((GenericApplicationContext) context).registerBean(RedissonClient.class,
                        redis::newRedissonClient, bd -> bd.setDestroyMethodName("shutdown")))
                .run("--server.port=0", "--management.endpoints.web.exposure.include=ratelimits",
                        "--ratelimit.backend-timeout=5s", "--spring.main.banner-mode=off",
                        "--ratelimit.routes.api.paths=/api/**", "--ratelimit.routes.api.key=remoteAddress",
                        "--ratelimit.routes.api.rate=3", "--ratelimit.routes.api.interval=60s",
                        "--ratelimit.routes.login.paths=/login", "--ratelimit.routes.login.methods=POST",
                        "--ratelimit.routes.login.key='login:' + param['user'] + ':' + remoteAddress",
                        "--ratelimit.routes.login.rate=2", "--ratelimit.routes.login.interval=15m",
                        "--ratelimit.routes.login.charge-when=#status == 401",
                        "--ratelimit.routes.later.paths=/login-later", "--ratelimit.routes.later.key=param['user']",
                        "--ratelimit.routes.later.rate=2", "--ratelimit.routes.later.interval=15m",
                        "--ratelimit.routes.later.charge-when=#status == 401",
                        "--ratelimit.routes.keyed.paths=/keyed/{id}",
                        "--ratelimit.routes.keyed.key=header['X-Api-Key'] == null ? null : pathVariable['id'] + ':' + header['X-Api-Key']",
                        "--ratelimit.routes.keyed.rate=5", "--ratelimit.routes.keyed.message=Slow down",
                        "--ratelimit.routes.plans.paths=/other", "--ratelimit.routes.plans.key=header['X-User']",
                        "--ratelimit.routes.plans.rate=1", "--ratelimit.routes.plans.interval=60s",
                        "--ratelimit.routes.plans.tier=header['X-Plan']", "--ratelimit.routes.plans.tiers.gold.rate=3",
                        "--ratelimit.routes.by-user.paths=/keyed/**", "--ratelimit.routes.by-user.key='user:' + principal",
                        "--ratelimit.routes.by-user.rate=2", "--ratelimit.routes.by-user.cost=param['n'] == null ? 1 : param['n']",
                        "--ratelimit.routes.by-user.shadow=true");
    }

    private HttpResponse<String> send(ConfigurableApplicationContext context, String method, String path,
            String... headers) throws IOException, InterruptedException {
        URI uri = URI.create("http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port") + path);
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).method(method, HttpRequest.BodyPublishers.noBody());
        if (headers.length > 0) {
            request.headers(headers);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The free permits once they reach {@code expected}: a refund lands right after its response. */
    private Long awaitFree(String key, long expected) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        Long free = free(key);
        while ((free == null || free != expected) && System.nanoTime() < deadline) {
            Thread.sleep(20);
            free = free(key);
        }
        return free;
    }

    private Long free(String key) {
        try (RespClient cli = redis.cli()) {
            String free = cli.string("GET", "rate_limit:{" + key + "}:value");
            return free == null ? null : Long.valueOf(free);
        }
    }

    @ParameterizedTest
    @EnumSource(value = WebApplicationType.class, names = { "SERVLET", "REACTIVE" })
    void aRouteLimitsEveryPathItCoversPerClientAddressWithoutSpoofing(WebApplicationType type) throws Exception {
        try (ConfigurableApplicationContext context = start(type)) {
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> allowed = send(context, "GET", "/api/hello", "X-Forwarded-For", "10.0.0." + i);
                assertThat(allowed.statusCode()).isEqualTo(200);
                int left = 2 - i;
                assertThat(allowed.headers().firstValue("RateLimit")).hasValueSatisfying(
                        value -> assertThat(value).matches("\"api\";r=" + left + ";t=(5[0-9]|60)"));
            }
            HttpResponse<String> rejected = send(context, "GET", "/api/hello", "X-Forwarded-For", "10.0.0.9");
            assertThat(rejected.statusCode()).as("a forged X-Forwarded-For opens no new bucket").isEqualTo(429);
            assertThat(rejected.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(rejected.headers().firstValue("Retry-After")).hasValueSatisfying(
                    seconds -> assertThat(Long.parseLong(seconds)).isBetween(55L, 60L));
            Map<String, Object> problem = json.readValue(rejected.body(), new TypeReference<Map<String, Object>>() { });
            assertThat(problem).containsEntry("status", 429).containsEntry("title", "Too Many Requests")
                    .containsEntry("detail", "Too many requests").containsEntry("instance", "/api/hello");
            assertThat(free("api:127.0.0.1")).as("the three grants, counted by Redis").isEqualTo(0L);
            io.micrometer.core.instrument.MeterRegistry meters = context.getBean(
                    io.micrometer.core.instrument.MeterRegistry.class);
            assertThat(meters.get("ratelimit.requests").tag("limit", "api").tag("result", "allowed").counter().count())
                    .as("route decisions are metered like annotated ones").isEqualTo(3.0);
            assertThat(meters.get("ratelimit.requests").tag("limit", "api").tag("result", "rejected").counter().count())
                    .isEqualTo(1.0);
            assertThat(send(context, "GET", "/other/x").statusCode()).as("a path no route covers").isEqualTo(404);

            String listing = send(context, "GET", "/actuator/ratelimits").body();
            assertThat(listing).contains("\"api\"", "\"login\"", "route 'api' [/api/**]");
            assertThat(send(context, "GET", "/actuator/ratelimits/api/127.0.0.1").body())
                    .contains("\"key\":\"api:127.0.0.1\"", "\"availablePermits\":0");
            assertThat(send(context, "DELETE", "/actuator/ratelimits/api/127.0.0.1").statusCode()).isEqualTo(200);
            assertThat(send(context, "GET", "/api/hello").statusCode()).as("after the reset").isEqualTo(200);

            HttpResponse<String> override = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + context.getEnvironment().getProperty("local.server.port") + "/actuator/ratelimits/api"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"rate\": 1, \"interval\": \"2m\"}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(override.statusCode()).as(override.body()).isEqualTo(200);
            HttpResponse<String> overridden = send(context, "GET", "/api/hello");
            assertThat(overridden.statusCode()).as("the override: 1 per 2m, already taken by the call after the reset")
                    .isEqualTo(429);
            assertThat(overridden.headers().firstValue("RateLimit")).hasValueSatisfying(
                    value -> assertThat(value).startsWith("\"api\";r=0;"));
        }
    }

    @ParameterizedTest
    @EnumSource(value = WebApplicationType.class, names = { "SERVLET", "REACTIVE" })
    void aRoutesTierPicksItsValuesPerRequest(WebApplicationType type) throws Exception {
        try (ConfigurableApplicationContext context = start(type)) {
            assertThat(send(context, "GET", "/other", "X-User", "u1").statusCode()).isEqualTo(200);
            assertThat(send(context, "GET", "/other", "X-User", "u1").statusCode()).as("no plan: 1 a minute")
                    .isEqualTo(429);
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> gold = send(context, "GET", "/other", "X-User", "u2", "X-Plan", "gold");
                assertThat(gold.statusCode()).isEqualTo(200);
                assertThat(gold.headers().firstValue("RateLimit-Policy")).hasValue("\"plans\";q=3;w=60");
            }
            assertThat(send(context, "GET", "/other", "X-User", "u2", "X-Plan", "gold").statusCode()).isEqualTo(429);
        }
    }

    @ParameterizedTest
    @EnumSource(value = WebApplicationType.class, names = { "SERVLET", "REACTIVE" })
    void aLoginRouteCountsOnlyTheStatusItIsToldTo(WebApplicationType type) throws Exception {
        try (ConfigurableApplicationContext context = start(type)) {
            for (int i = 0; i < 5; i++) {
                assertThat(send(context, "POST", "/login?user=ann&password=demo").statusCode()).isEqualTo(200);
            }
            assertThat(awaitFree("login:login:ann:127.0.0.1", 2)).as("successes are given back").isEqualTo(2L);
            assertThat(send(context, "POST", "/login?user=ann&password=guess").statusCode()).isEqualTo(401);
            assertThat(send(context, "POST", "/login?user=ann&password=guess").statusCode()).isEqualTo(401);
            assertThat(free("login:login:ann:127.0.0.1")).isEqualTo(0L);
            assertThat(send(context, "POST", "/login?user=ann&password=demo").statusCode())
                    .as("two failures spend the limit: even the right password waits").isEqualTo(429);
            assertThat(send(context, "GET", "/login?user=ann&password=demo").statusCode())
                    .as("a method the route does not cover").isIn(405, 404);

            for (int i = 0; i < 3; i++) {
                assertThat(send(context, "POST", "/login-later?user=bea&password=demo").statusCode()).isEqualTo(200);
            }
            assertThat(awaitFree("later:bea", 2)).as("an answer given later is settled when it ends").isEqualTo(2L);
            assertThat(send(context, "POST", "/login-later?user=bea&password=guess").statusCode()).isEqualTo(401);
            assertThat(send(context, "POST", "/login-later?user=bea&password=guess").statusCode()).isEqualTo(401);
            assertThat(send(context, "POST", "/login-later?user=bea&password=demo").statusCode()).isEqualTo(429);
        }
    }

    @ParameterizedTest
    @EnumSource(value = WebApplicationType.class, names = { "SERVLET", "REACTIVE" })
    void aRequestWithoutAKeyIsA400LoggedInOneLine(WebApplicationType type, CapturedOutput output) throws Exception {
        try (ConfigurableApplicationContext context = start(type)) {
            // with a principal: the shadow route by-user keys on it, and a key with a null part is no key
            assertThat(send(context, "GET", "/keyed/7", "X-Api-Key", "k1", "X-Principal", "zed").statusCode())
                    .isEqualTo(200);
            assertThat(free("keyed:7:k1")).isEqualTo(4L);

            HttpResponse<String> missing = send(context, "GET", "/keyed/7", "X-Principal", "zed");
            assertThat(missing.statusCode()).as("no X-Api-Key: no key").isEqualTo(400);
            assertThat(missing.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(json.readValue(missing.body(), new TypeReference<Map<String, Object>>() { })).containsEntry("status", 400)
                    .containsEntry("detail", "The request has no valid key for the rate limit 'keyed'");
            assertThat(output.getAll().lines().filter(line -> line.contains("Answered GET /keyed/7 with 400"))
                    .count()).as("one log line").isEqualTo(1);
            assertThat(output.getAll()).doesNotContain("RateLimitKeyException:");

            // a second route on /keyed/**, keyed by the principal an earlier filter authenticated, in shadow mode with
            // a cost: it decides and records but never refuses
            for (int i = 0; i < 3; i++) {
                assertThat(send(context, "GET", "/keyed/8?n=2", "X-Api-Key", "k2", "X-Principal", "alice")
                        .statusCode()).as("shadow mode never refuses").isEqualTo(200);
            }
            assertThat(free("by-user:user:alice")).as("keyed by the principal; cost 2 of rate 2 taken once")
                    .isEqualTo(0L);
        }
    }
}
