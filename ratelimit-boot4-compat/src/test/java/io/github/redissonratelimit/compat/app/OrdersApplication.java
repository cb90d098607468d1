package io.github.redissonratelimit.compat.app;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The sample's orders API as a Spring Boot 4 application: Redis comes from {@code spring.data.redis.*}. */
@SpringBootApplication(proxyBeanMethods = false)
public class OrdersApplication {

    /**
     * For the tests, which count grants: no decision may time out into {@code on-backend-error=allow}. The default
     * 100ms budget can be exceeded on a loaded 2-core build machine, and a limit of 2 then lets a third call through.
     */
    public static final String TEST_BACKEND_TIMEOUT = "ratelimit.backend-timeout=5s";

    public static void main(String[] args) {
        SpringApplication.run(OrdersApplication.class, args);
    }
}
