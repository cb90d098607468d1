package io.github.redissonratelimit.compat.app;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The sample's orders API as a Spring Boot 4 application: Redis comes from {@code spring.data.redis.*}. */
@SpringBootApplication(proxyBeanMethods = false)
public class OrdersApplication {

    public static void main(String[] args) {
        SpringApplication.run(OrdersApplication.class, args);
    }
}
