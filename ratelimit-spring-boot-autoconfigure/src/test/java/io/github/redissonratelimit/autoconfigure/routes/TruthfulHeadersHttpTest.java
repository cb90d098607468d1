package io.github.redissonratelimit.autoconfigure.routes;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.test.redis.FreshRedis;
import reactor.core.publisher.Mono;

/**
 * The rate limit headers tell the truth, over real HTTP on Spring MVC and WebFlux and a real Redis: a request that
 * {@code charge-when} / {@code chargeWhen} does not charge shows the permits after its refund, and a 429 lists every
 * limit the request went through (two {@code @RateLimit} on one method, two routes covering one request, a route and
 * an annotated method), not only the one that refused it.
 */
class TruthfulHeadersHttpTest {

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final HttpApps apps = new HttpApps(fresh.endpoint());

    @RestController
    public static class Api {

        @PostMapping("/login")
        public ResponseEntity<String> login(@RequestParam String password) {
            return "demo".equals(password) ? ResponseEntity.ok("welcome")
                    : ResponseEntity.status(HttpStatus.UNAUTHORIZED).body("bad credentials");
        }

        @GetMapping("/check")
        @RateLimit(name = "check", key = "#user", rate = 2, interval = 60, chargeWhen = "#result == 'denied'")
        public String check(@RequestParam String user, @RequestParam boolean ok) {
            return ok ? "ok" : "denied";
        }

        @GetMapping("/check-reactive")
        @RateLimit(name = "check", key = "#user", rate = 2, interval = 60, chargeWhen = "#result == 'denied'")
        public Mono<String> checkReactive(@RequestParam String user, @RequestParam boolean ok) {
            return Mono.just(ok ? "ok" : "denied");
        }

        @GetMapping("/export")
        @RateLimit(name = "export-burst", key = "'burst:' + #user", rate = 1, interval = 60)
        @RateLimit(name = "export-daily", key = "'daily:' + #user", rate = 5, interval = 86400)
        public String export(@RequestParam String user) {
            return "export";
        }

        @GetMapping("/export-reactive")
        @RateLimit(name = "export-burst", key = "'burst:' + #user", rate = 1, interval = 60)
        @RateLimit(name = "export-daily", key = "'daily:' + #user", rate = 5, interval = 86400)
        public Mono<String> exportReactive(@RequestParam String user) {
            return Mono.just("export");
        }

        @GetMapping("/api/data")
        public String data() {
            return "data";
        }

        @GetMapping("/mixed")
        @RateLimit(name = "mixed-method", rate = 1, interval = 60)
        public String mixed() {
            return "mixed";
        }

        @GetMapping("/mixed-reactive")
        @RateLimit(name = "mixed-method", rate = 1, interval = 60)
        public Mono<String> mixedReactive() {
            return Mono.just("mixed");
        }
    }

    private ConfigurableApplicationContext start(WebApplicationType type) {
        return apps.start(type, Api.class,
                "ratelimit.routes.login.paths=/login", "ratelimit.routes.login.key=param['user']",
                "ratelimit.routes.login.rate=2", "ratelimit.routes.login.interval=60s",
                "ratelimit.routes.login.charge-when=#status == 401",
                "ratelimit.routes.a-strict.paths=/api/**", "ratelimit.routes.a-strict.key='a:' + remoteAddress",
                "ratelimit.routes.a-strict.rate=1", "ratelimit.routes.a-strict.interval=60s",
                "ratelimit.routes.b-loose.paths=/api/**", "ratelimit.routes.b-loose.key='b:' + remoteAddress",
                "ratelimit.routes.b-loose.rate=5", "ratelimit.routes.b-loose.interval=60s",
                "ratelimit.routes.mixed-route.paths=/mixed,/mixed-reactive",
                "ratelimit.routes.mixed-route.key=remoteAddress", "ratelimit.routes.mixed-route.rate=5",
                "ratelimit.routes.mixed-route.interval=60s");
    }

    private static String header(HttpResponse<String> response, String name) {
        return response.headers().firstValue(name).orElse(null);
    }

    @ParameterizedTest
    @EnumSource(value = WebApplicationType.class, names = { "SERVLET", "REACTIVE" })
    void aRouteRequestNotChargedShowsThePermitsAfterItsRefund(WebApplicationType type) throws Exception {
        try (ConfigurableApplicationContext context = start(type)) {
            HttpResponse<String> success = apps.send(context, "POST", "/login?user=ann&password=demo");
            assertThat(success.statusCode()).isEqualTo(200);
            assertThat(header(success, "RateLimit")).as("given back: the limit is whole again").isEqualTo(
                    "\"login\";r=2");
            HttpResponse<String> failure = apps.send(context, "POST", "/login?user=ann&password=guess");
            assertThat(failure.statusCode()).isEqualTo(401);
            assertThat(header(failure, "RateLimit")).as("charged").matches("\"login\";r=1;t=(59|60)");
            HttpResponse<String> again = apps.send(context, "POST", "/login?user=ann&password=demo");
            assertThat(header(again, "RateLimit")).as("the failure's permit stays taken")
                    .matches("\"login\";r=1;t=(5[0-9]|60)");
        }
    }

    @ParameterizedTest
    @EnumSource(value = WebApplicationType.class, names = { "SERVLET", "REACTIVE" })
    void anAnnotatedCallNotChargedShowsThePermitsAfterItsRefund(WebApplicationType type) throws Exception {
        String path = type == WebApplicationType.SERVLET ? "/check" : "/check-reactive";
        try (ConfigurableApplicationContext context = start(type)) {
            HttpResponse<String> ok = apps.send(context, "GET", path + "?user=bo&ok=true");
            assertThat(ok.body()).isEqualTo("ok");
            assertThat(header(ok, "RateLimit")).as("given back: the limit is whole again").isEqualTo("\"check\";r=2");
            HttpResponse<String> denied = apps.send(context, "GET", path + "?user=bo&ok=false");
            assertThat(denied.body()).isEqualTo("denied");
            assertThat(header(denied, "RateLimit")).as("charged").matches("\"check\";r=1;t=(59|60)");
            assertThat(apps.free("bo")).as("what Redis holds, as the header said").isEqualTo(1L);
        }
    }

    @ParameterizedTest
    @EnumSource(value = WebApplicationType.class, names = { "SERVLET", "REACTIVE" })
    void aRejectionByTheFirstOfTwoLimitsListsBoth(WebApplicationType type) throws Exception {
        String path = type == WebApplicationType.SERVLET ? "/export" : "/export-reactive";
        try (ConfigurableApplicationContext context = start(type)) {
            assertThat(apps.send(context, "GET", path + "?user=cy").statusCode()).isEqualTo(200);
            HttpResponse<String> rejected = apps.send(context, "GET", path + "?user=cy");
            assertThat(rejected.statusCode()).isEqualTo(429);
            assertThat(header(rejected, "RateLimit-Policy"))
                    .isEqualTo("\"export-burst\";q=1;w=60, \"export-daily\";q=5;w=86400");
            // the first call took the burst's last permit, so this one was refused from memory without asking Redis
            // for either limit: the daily limit shows its policy, not permits nobody read
            assertThat(header(rejected, "RateLimit")).matches("\"export-burst\";r=0;t=(5[0-9]|60)");
            assertThat(apps.free("daily:cy")).isEqualTo(4L);
        }
    }

    @ParameterizedTest
    @EnumSource(value = WebApplicationType.class, names = { "SERVLET", "REACTIVE" })
    void aRejectionByTheFirstOfTwoRoutesListsBoth(WebApplicationType type) throws Exception {
        try (ConfigurableApplicationContext context = start(type)) {
            HttpResponse<String> allowed = apps.send(context, "GET", "/api/data");
            assertThat(allowed.statusCode()).isEqualTo(200);
            assertThat(header(allowed, "RateLimit-Policy")).isEqualTo("\"a-strict\";q=1;w=60, \"b-loose\";q=5;w=60");
            HttpResponse<String> rejected = apps.send(context, "GET", "/api/data");
            assertThat(rejected.statusCode()).isEqualTo(429);
            assertThat(header(rejected, "RateLimit-Policy")).isEqualTo("\"a-strict\";q=1;w=60, \"b-loose\";q=5;w=60");
            assertThat(header(rejected, "RateLimit")).as("refused from memory: b-loose was not asked")
                    .matches("\"a-strict\";r=0;t=(5[0-9]|60)");
        }
    }

    @ParameterizedTest
    @EnumSource(value = WebApplicationType.class, names = { "SERVLET", "REACTIVE" })
    void aRejectionByAnAnnotatedMethodListsTheRouteToo(WebApplicationType type) throws Exception {
        String path = type == WebApplicationType.SERVLET ? "/mixed" : "/mixed-reactive";
        try (ConfigurableApplicationContext context = start(type)) {
            assertThat(apps.send(context, "GET", path).statusCode()).isEqualTo(200);
            HttpResponse<String> rejected = apps.send(context, "GET", path);
            assertThat(rejected.statusCode()).isEqualTo(429);
            assertThat(header(rejected, "RateLimit-Policy"))
                    .isEqualTo("\"mixed-route\";q=5;w=60, \"mixed-method\";q=1;w=60");
            assertThat(header(rejected, "RateLimit"))
                    .matches("\"mixed-route\";r=3;t=(5[0-9]|60), \"mixed-method\";r=0;t=(5[0-9]|60)");
        }
    }
}
