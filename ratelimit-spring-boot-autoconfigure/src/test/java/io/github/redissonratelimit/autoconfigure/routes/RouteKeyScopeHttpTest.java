package io.github.redissonratelimit.autoconfigure.routes;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
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
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.autoconfigure.actuate.RateLimitEndpointAutoConfiguration;
import io.github.redissonratelimit.test.redis.FreshRedis;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * Routes keyed alike over real HTTP (Spring MVC and WebFlux) on a real Redis: each route counts in its own limiter
 * ({@code rate_limit:{api:127.0.0.1}}) unless {@code key-scope: shared} keeps the key alone; the actuator reads a
 * keyed route's declaration without a key, reads and resets one caller by the key's value, and resets every caller
 * of a route (on every instance, their flood shortcuts included), or refuses that for a shared route whose key has no
 * literal beginning, with a 400 saying what to do.
 */
@ExtendWith(OutputCaptureExtension.class)
class RouteKeyScopeHttpTest {

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

        @GetMapping("/api/export/report")
        String report() {
            return "report";
        }
    }

    @Configuration(proxyBeanMethods = false)
    @Import(Api.class)
    @ImportAutoConfiguration({ RateLimitAutoConfiguration.class, RateLimitRoutesAutoConfiguration.class,
            RateLimitEndpointAutoConfiguration.class, EndpointAutoConfiguration.class,
            WebEndpointAutoConfiguration.class, ManagementContextAutoConfiguration.class,
            JacksonAutoConfiguration.class })
    static class Common {
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ ServletWebServerFactoryAutoConfiguration.class,
            DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class,
            HttpMessageConvertersAutoConfiguration.class, ServletManagementContextAutoConfiguration.class })
    static class Servlet {
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ ReactiveWebServerFactoryAutoConfiguration.class, HttpHandlerAutoConfiguration.class,
            WebFluxAutoConfiguration.class, CodecsAutoConfiguration.class,
            ReactiveManagementContextAutoConfiguration.class })
    static class Reactive {
    }

    /** {@code /api/**} 3 a minute and {@code /api/export/**} 10 a minute, both per client address. */
    private ConfigurableApplicationContext start(WebApplicationType type, String... more) {
        List<String> args = new ArrayList<>(List.of("--server.port=0",
                "--management.endpoints.web.exposure.include=ratelimits", "--ratelimit.backend-timeout=5s",
                "--spring.main.banner-mode=off", "--ratelimit.routes.api.paths=/api/**",
                "--ratelimit.routes.api.key=remoteAddress", "--ratelimit.routes.api.rate=3",
                "--ratelimit.routes.api.interval=60s", "--ratelimit.routes.export.paths=/api/export/**",
                "--ratelimit.routes.export.key=remoteAddress", "--ratelimit.routes.export.rate=10",
                "--ratelimit.routes.export.interval=60s"));
        args.addAll(List.of(more));
        return new SpringApplicationBuilder(Common.class, type == WebApplicationType.SERVLET ? Servlet.class
                : Reactive.class).web(type)
                .initializers(context -> ((GenericApplicationContext) context).registerBean(RedissonClient.class,
                        redis::newRedissonClient, bd -> bd.setDestroyMethodName("shutdown")))
                .run(args.toArray(String[]::new));
    }

    private HttpResponse<String> send(ConfigurableApplicationContext context, String method, String path)
            throws IOException, InterruptedException {
        URI uri = URI.create("http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port") + path);
        return http.send(HttpRequest.newBuilder(uri).method(method, HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private Map<String, Object> body(HttpResponse<String> response) throws IOException {
        return json.readValue(response.body(), new TypeReference<Map<String, Object>>() { });
    }

    /** The permits free in the limiter of {@code logicalKey}, as Redis counts them; null when it has no state. */
    private Long free(String logicalKey) {
        try (RespClient cli = redis.cli()) {
            String free = cli.string("GET", "rate_limit:{" + logicalKey + "}:value");
            return free == null ? null : Long.valueOf(free);
        }
    }

    private long keysOf(String logicalKey) {
        try (RespClient cli = redis.cli()) {
            return cli.list("KEYS", "rate_limit:{" + logicalKey + "}*").size();
        }
    }

    @ParameterizedTest
    @EnumSource(value = WebApplicationType.class, names = { "SERVLET", "REACTIVE" })
    void routesKeyedAlikeCountApart(WebApplicationType type) throws Exception {
        try (ConfigurableApplicationContext context = start(type)) {
            HttpResponse<String> first = send(context, "GET", "/api/export/report");
            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.headers().firstValue("RateLimit")).hasValueSatisfying(value -> assertThat(value)
                    .as("each route's own count").contains("\"api\";r=2;", "\"export\";r=9;"));
            assertThat(send(context, "GET", "/api/export/report").statusCode()).isEqualTo(200);
            assertThat(send(context, "GET", "/api/hello").statusCode()).isEqualTo(200);
            assertThat(free("api:127.0.0.1")).as("/api/** took 3 of 3").isEqualTo(0L);
            assertThat(free("export:127.0.0.1")).as("/api/export/** took 2 of 10, in a limiter of its own")
                    .isEqualTo(8L);
            assertThat(free("127.0.0.1")).as("no limiter named by the key alone").isNull();
            assertThat(send(context, "GET", "/api/hello").statusCode()).isEqualTo(429);

            Map<String, Object> export = body(send(context, "GET", "/actuator/ratelimits/export/127.0.0.1"));
            assertThat(export).containsEntry("key", "export:127.0.0.1")
                    .containsEntry("limiterName", "rate_limit:{export:127.0.0.1}").containsEntry("availablePermits", 8);
        }
    }

    @ParameterizedTest
    @EnumSource(value = WebApplicationType.class, names = { "SERVLET", "REACTIVE" })
    void aKeyedRouteIsReadWithoutAKeyAsItsDeclarationOnly(WebApplicationType type) throws Exception {
        try (ConfigurableApplicationContext context = start(type)) {
            assertThat(send(context, "GET", "/api/hello").statusCode()).isEqualTo(200);
            HttpResponse<String> read = send(context, "GET", "/actuator/ratelimits/api");
            assertThat(read.statusCode()).isEqualTo(200);
            Map<String, Object> state = body(read);
            assertThat(state).containsEntry("key", null).containsEntry("limiterName", null)
                    .containsEntry("availablePermits", null).containsEntry("nextPermitInMillis", null);
            assertThat(state.get("limits")).asList().singleElement().asInstanceOf(
                    org.assertj.core.api.InstanceOfAssertFactories.MAP).containsEntry("name", "api")
                    .containsEntry("key", "remoteAddress").containsEntry("rate", 3);
        }
    }

    @ParameterizedTest
    @EnumSource(value = WebApplicationType.class, names = { "SERVLET", "REACTIVE" })
    void everyCallerOfARouteIsResetAndNoOtherRoutes(WebApplicationType type) throws Exception {
        try (ConfigurableApplicationContext context = start(type, "--ratelimit.routes.other.paths=/other/**",
                "--ratelimit.routes.other.key='api:x:' + remoteAddress", "--ratelimit.routes.other.key-scope=shared",
                "--ratelimit.routes.other.rate=5")) {
            for (int i = 0; i < 3; i++) {
                assertThat(send(context, "GET", "/api/export/report").statusCode()).isEqualTo(200);
            }
            assertThat(send(context, "GET", "/api/hello").statusCode()).isEqualTo(429);
            assertThat(send(context, "GET", "/api/hello").statusCode()).as("refused again").isEqualTo(429);
            assertThat(send(context, "GET", "/other/x").statusCode()).as("no handler, but counted").isEqualTo(404);
            assertThat(free("api:x:127.0.0.1")).isEqualTo(4L);
            long apiKeys = keysOf("api:127.0.0.1");
            assertThat(apiKeys).isPositive();

            HttpResponse<String> reset = send(context, "DELETE", "/actuator/ratelimits/api");
            assertThat(reset.statusCode()).as(reset.body()).isEqualTo(200);
            assertThat(body(reset)).containsEntry("name", "api").containsEntry("key", null)
                    .containsEntry("deletedKeys", (int) apiKeys).containsEntry("instancesConfirmed", 1);
            assertThat(keysOf("api:127.0.0.1")).isZero();
            assertThat(free("export:127.0.0.1")).as("another route's limiter is kept").isEqualTo(7L);
            assertThat(free("api:x:127.0.0.1")).as("kept: a route whose keys have a longer beginning").isEqualTo(4L);
            assertThat(send(context, "GET", "/api/hello").statusCode())
                    .as("a full bucket, and this instance forgot its remembered refusal").isEqualTo(200);
            assertThat(free("api:127.0.0.1")).isEqualTo(2L);

            long otherKeys = keysOf("api:x:127.0.0.1");
            HttpResponse<String> shared = send(context, "DELETE", "/actuator/ratelimits/other");
            assertThat(shared.statusCode()).as("a shared route by its key's literal beginning").isEqualTo(200);
            assertThat(body(shared)).containsEntry("deletedKeys", (int) otherKeys);
            assertThat(keysOf("api:x:127.0.0.1")).isZero();
            assertThat(free("api:127.0.0.1")).as("the route api's limiter is not under api:x:").isEqualTo(2L);
        }
    }

    @Test
    void aRouteResetOnOneInstanceReachesTheOtherThoughItRememberedTheRefusal() throws Exception {
        try (ConfigurableApplicationContext first = start(WebApplicationType.SERVLET);
                ConfigurableApplicationContext second = start(WebApplicationType.SERVLET)) {
            for (int i = 0; i < 3; i++) {
                assertThat(send(first, "GET", "/api/hello").statusCode()).isEqualTo(200);
            }
            assertThat(send(second, "GET", "/api/hello").statusCode()).isEqualTo(429);
            assertThat(send(second, "GET", "/api/hello").statusCode()).as("refused from its memory").isEqualTo(429);

            HttpResponse<String> reset = send(first, "DELETE", "/actuator/ratelimits/api");
            assertThat(reset.statusCode()).as(reset.body()).isEqualTo(200);
            assertThat(body(reset)).containsEntry("instancesConfirmed", 2);
            assertThat(send(second, "GET", "/api/hello").statusCode()).as("the second instance forgot it")
                    .isEqualTo(200);
            assertThat(free("api:127.0.0.1")).isEqualTo(2L);
        }
    }

    @ParameterizedTest
    @EnumSource(value = WebApplicationType.class, names = { "SERVLET", "REACTIVE" })
    void aSharedRouteKeepsTheKeyAloneAndIsResetCallerByCaller(WebApplicationType type, CapturedOutput output)
            throws Exception {
        try (ConfigurableApplicationContext context = start(type, "--ratelimit.routes.api.key-scope=shared",
                "--ratelimit.routes.export.enabled=false")) {
            assertThat(send(context, "GET", "/api/hello").statusCode()).isEqualTo(200);
            assertThat(free("127.0.0.1")).as("the limiter named before key-scope existed").isEqualTo(2L);
            assertThat(free("api:127.0.0.1")).isNull();
            assertThat(body(send(context, "GET", "/actuator/ratelimits/api/127.0.0.1")))
                    .containsEntry("key", "127.0.0.1").containsEntry("availablePermits", 2);

            HttpResponse<String> refused = send(context, "DELETE", "/actuator/ratelimits/api");
            assertThat(refused.statusCode()).isEqualTo(400);
            assertThat(refused.headers().firstValue("Content-Type")).hasValueSatisfying(
                    value -> assertThat(value).startsWith("application/problem+json"));
            assertThat(body(refused)).containsEntry("status", 400).containsEntry("field", "key")
                    .hasEntrySatisfying("detail", detail -> assertThat(detail.toString()).contains("shared scope",
                            "?key=", "key-scope: route in ratelimit.routes.api"));
            assertThat(output.getAll().lines().filter(line -> line.contains("Refused to reset rate limit 'api'"))
                    .count()).as("one WARN line").isEqualTo(1);
            assertThat(free("127.0.0.1")).as("nothing deleted").isEqualTo(2L);

            HttpResponse<String> one = send(context, "DELETE", "/actuator/ratelimits/api?key=127.0.0.1");
            assertThat(one.statusCode()).as(one.body()).isEqualTo(200);
            assertThat(body(one)).containsEntry("key", "127.0.0.1");
            assertThat(free("127.0.0.1")).isNull();
        }
    }
}
