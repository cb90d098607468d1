package io.github.redissonratelimit.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;


/** {@code ratelimit.headers.*}: which rate limit headers HTTP responses carry, and their names. */
public class HeadersProperties {

    /**
     * Whether responses of limited calls (allowed and rejected) carry rate limit headers. 'Retry-After' on
     * HTTP 429 is sent either way.
     */
    private boolean enabled = true;

    /**
     * Which headers: 'ietf' for 'RateLimit-Policy' and 'RateLimit' (draft-ietf-httpapi-ratelimit-headers),
     * 'legacy' for 'X-RateLimit-Limit', 'X-RateLimit-Remaining' and 'X-RateLimit-Reset', 'gateway' for the ietf
     * headers and beside them Spring Cloud Gateway's 'X-RateLimit-Remaining', 'X-RateLimit-Replenish-Rate',
     * 'X-RateLimit-Burst-Capacity' and 'X-RateLimit-Requested-Tokens'.
     */
    private RateLimitHeaderStyle style = RateLimitHeaderStyle.IETF;

    /**
     * Whether allowed responses also report the permits left and when the next one returns. Free with the
     * Redis backend, whose decisions carry both; a custom backend whose decisions do not is asked with one
     * more round trip per limit. Without it, allowed responses carry the policy only; rejections always
     * report 0 permits left and the retry time.
     */
    private boolean remaining = true;

    /**
     * Name of the header that describes each limit's quota and window (ietf style).
     */
    private String policyHeader = "RateLimit-Policy";

    /**
     * Name of the header that reports the permits left and the seconds until they return (ietf style).
     */
    private String limitHeader = "RateLimit";

    /**
     * Name of the header that carries the rate of the tightest limit (legacy style).
     */
    private String legacyLimitHeader = "X-RateLimit-Limit";

    /**
     * Name of the header that carries the permits left (legacy style).
     */
    private String legacyRemainingHeader = "X-RateLimit-Remaining";

    /**
     * Name of the header that carries the seconds until a permit returns (legacy style).
     */
    private String legacyResetHeader = "X-RateLimit-Reset";

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public RateLimitHeaderStyle getStyle() {
        return style;
    }

    public void setStyle(RateLimitHeaderStyle style) {
        this.style = style;
    }

    public boolean isRemaining() {
        return remaining;
    }

    public void setRemaining(boolean remaining) {
        this.remaining = remaining;
    }

    public String getPolicyHeader() {
        return policyHeader;
    }

    public void setPolicyHeader(String policyHeader) {
        this.policyHeader = policyHeader;
    }

    public String getLimitHeader() {
        return limitHeader;
    }

    public void setLimitHeader(String limitHeader) {
        this.limitHeader = limitHeader;
    }

    public String getLegacyLimitHeader() {
        return legacyLimitHeader;
    }

    public void setLegacyLimitHeader(String legacyLimitHeader) {
        this.legacyLimitHeader = legacyLimitHeader;
    }

    public String getLegacyRemainingHeader() {
        return legacyRemainingHeader;
    }

    public void setLegacyRemainingHeader(String legacyRemainingHeader) {
        this.legacyRemainingHeader = legacyRemainingHeader;
    }

    public String getLegacyResetHeader() {
        return legacyResetHeader;
    }

    public void setLegacyResetHeader(String legacyResetHeader) {
        this.legacyResetHeader = legacyResetHeader;
    }

    /** RFC 9110 token characters only, so that no name can break the response. */
    void validate(PropertyErrors errors) {
        Map<String, String> names = new LinkedHashMap<>();
        names.put("policyHeader", policyHeader);
        names.put("limitHeader", limitHeader);
        names.put("legacyLimitHeader", legacyLimitHeader);
        names.put("legacyRemainingHeader", legacyRemainingHeader);
        names.put("legacyResetHeader", legacyResetHeader);
        names.forEach((field, name) -> errors.require(
                name != null && !name.isEmpty() && name.chars().allMatch(HeadersProperties::isTokenChar), field,
                "'" + name + "'", "must be an HTTP header name (letters, digits and !#$%&'*+-.^_`|~)"));
    }

    private static boolean isTokenChar(int c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
    }
}
