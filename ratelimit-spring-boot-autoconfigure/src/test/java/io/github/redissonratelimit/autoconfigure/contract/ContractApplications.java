package io.github.redissonratelimit.autoconfigure.contract;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.autoconfigure.routes.HttpApps;
import io.github.redissonratelimit.test.contract.LimitContract;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/** The applications that serve {@link LimitContract}'s limits: annotated methods, and routes (MVC and WebFlux). */
final class ContractApplications {

    private ContractApplications() {
    }

    /** The contract's paths, limited by nothing of their own. */
    @RestController
    static class Plain {

        @GetMapping({"/contract/wide", "/contract/narrow", "/contract/keyed", "/contract/two"})
        String ok() {
            return "ok";
        }

        @GetMapping("/contract/charged")
        ResponseEntity<String> charged(@RequestParam int status) {
            return ResponseEntity.status(status).body("status " + status);
        }
    }

    /** The contract's limits as annotations; their keys say whose limiter they are, as annotated keys do. */
    @RestController
    static class Annotated {

        @GetMapping("/contract/wide")
        @RateLimit(name = "wide", key = "'wide:' + #request.remoteAddr", rate = 5, interval = 60)
        String wide(HttpServletRequest request) {
            return "ok";
        }

        @GetMapping("/contract/narrow")
        @RateLimit(name = "narrow", key = "'narrow:' + #request.remoteAddr", rate = 2, interval = 60)
        String narrow(HttpServletRequest request) {
            return "ok";
        }

        @GetMapping("/contract/keyed")
        @RateLimit(name = "keyed", key = "'keyed:' + #user + ':' + #request.remoteAddr", rate = 2, interval = 60)
        String keyed(@RequestParam(required = false) String user, HttpServletRequest request) {
            return "ok";
        }

        @GetMapping("/contract/charged")
        @RateLimit(name = "charged", key = "'charged:' + #request.remoteAddr", rate = 3, interval = 60,
                chargeWhen = "#result.statusCode.value() >= 400")
        ResponseEntity<String> charged(@RequestParam int status, HttpServletRequest request) {
            return ResponseEntity.status(status).body("status " + status);
        }

        @GetMapping("/contract/two")
        @RateLimit(name = "first", key = "'first:' + #request.remoteAddr", rate = 1, interval = 60)
        @RateLimit(name = "second", key = "'second:' + #request.remoteAddr", rate = 5, interval = 60)
        String two(HttpServletRequest request) {
            return "ok";
        }
    }

    /** The annotated application, on Spring MVC. */
    static ConfigurableApplicationContext annotated(RedisEndpoint redis) {
        return start(redis, WebApplicationType.SERVLET, Annotated.class, List.of());
    }

    /** The contract's limits as {@code ratelimit.routes}, on Spring MVC or WebFlux. */
    static ConfigurableApplicationContext routes(RedisEndpoint redis, WebApplicationType type) {
        List<String> routes = new ArrayList<>();
        route(routes, "wide", "/contract/wide", "remoteAddress", 5);
        route(routes, "narrow", "/contract/narrow", "remoteAddress", 2);
        route(routes, "keyed", "/contract/keyed", "param['user'] + ':' + remoteAddress", 2);
        route(routes, "charged", "/contract/charged", "remoteAddress", 3);
        routes.add("ratelimit.routes.charged.charge-when=#status >= 400");
        route(routes, "first", "/contract/two", "remoteAddress", 1);
        route(routes, "second", "/contract/two", "remoteAddress", 5);
        return start(redis, type, Plain.class, routes);
    }

    private static void route(List<String> arguments, String name, String path, String key, long rate) {
        String prefix = "ratelimit.routes." + name + ".";
        arguments.addAll(List.of(prefix + "paths=" + path, prefix + "key=" + key, prefix + "rate=" + rate,
                prefix + "interval=60s"));
    }

    private static ConfigurableApplicationContext start(RedisEndpoint redis, WebApplicationType type,
            Class<?> controller, List<String> limits) {
        return new HttpApps(redis).start(type, controller, limits.toArray(String[]::new));
    }

    static URI base(ConfigurableApplicationContext context) {
        return URI.create("http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port"));
    }
}
