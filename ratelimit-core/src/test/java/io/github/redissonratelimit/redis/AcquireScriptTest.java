package io.github.redissonratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.InstantSource;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

class AcquireScriptTest {

    /** The script of a backend with the default options. */
    static AcquireScript forClient(String clientId) {
        return new AcquireScript(clientId, BackendOptions.DEFAULTS, InstantSource.system());
    }

    @Test
    void grantIdsAreSixteenCharactersAndUniqueAcrossInstances() {
        AcquireScript one = AcquireScriptTest.forClient("client");
        AcquireScript other = AcquireScriptTest.forClient("client");
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            assertThat(ids.add(one.nextGrantId())).isTrue();
            assertThat(ids.add(other.nextGrantId())).isTrue();
        }
        assertThat(ids).allSatisfy(id -> assertThat(id).hasSize(16));
    }

    @Test
    void keysAreRRateLimitersSharedAndPerClientOnes() {
        assertThat(AcquireScriptTest.forClient("c1").keys("rl:{k}")).isEqualTo(List.of("rl:{k}", "rl:{k}:value",
                "rl:{k}:value:c1", "rl:{k}:permits", "rl:{k}:permits:c1"));
    }
}
