package io.github.redissonratelimit.sample;

import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

import io.github.redissonratelimit.annotation.RateLimit;

@RestController
public class LoginController {

    /**
     * At most 5 failed logins per 15 minutes for one user from one address: a successful login is never counted,
     * and once 5 failures are in the window even the right password is refused with 429 until they leave it.
     */
    @PostMapping("/login")
    @RateLimit(name = "login-failures", key = "'login:' + #user + ':' + #request.remoteAddr", rate = 5, window = "15m",
            chargeWhen = "#exception != null", message = "Too many failed logins, try again later")
    public Map<String, String> login(@RequestParam String user, @RequestParam String password,
            HttpServletRequest request) {
        if (!"demo".equals(password)) { // a real application asks its authentication manager
            throw new BadCredentialsException();
        }
        return Map.of("user", user, "status", "LOGGED_IN");
    }

    @ExceptionHandler(BadCredentialsException.class)
    @ResponseStatus(HttpStatus.UNAUTHORIZED)
    public Map<String, String> badCredentials() {
        return Map.of("status", "BAD_CREDENTIALS");
    }

    static final class BadCredentialsException extends RuntimeException {

        BadCredentialsException() {
            super("bad credentials", null, false, false);
        }
    }
}
