package io.github.redissonratelimit.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

/** {@link SameCallAcquires}: what is held is handed over when its own scope closes, per sender, in order. */
class SameCallAcquiresTest {

    private final List<List<String>> sent = new ArrayList<>();

    @Test
    void withoutAScopeNothingIsHeld() {
        assertThat(SameCallAcquires.hold(this, "a", sent::add)).isFalse();
        assertThat(sent).isEmpty();
    }

    @Test
    void theHeldAcquiresOfEachSenderAreHandedOverTogetherWhenTheScopeCloses() {
        Object otherSender = new Object();
        List<List<String>> sentByOther = new ArrayList<>();
        try (SameCallAcquires call = SameCallAcquires.open()) {
            assertThat(SameCallAcquires.hold(this, "a", sent::add)).isTrue();
            assertThat(SameCallAcquires.hold(otherSender, "x", sentByOther::add)).isTrue();
            assertThat(SameCallAcquires.hold(this, "b", sent::add)).isTrue();
            assertThat(sent).isEmpty();
        }
        assertThat(sent).containsExactly(List.of("a", "b"));
        assertThat(sentByOther).containsExactly(List.of("x"));
        assertThat(SameCallAcquires.hold(this, "c", sent::add)).as("closed").isFalse();
    }

    @Test
    void anInnerScopeSendsWhatItHeldWithoutWaitingForTheOuterOne() {
        try (SameCallAcquires outer = SameCallAcquires.open()) {
            SameCallAcquires.hold(this, "outer", sent::add);
            try (SameCallAcquires inner = SameCallAcquires.open()) {
                SameCallAcquires.hold(this, "inner", sent::add);
            }
            assertThat(sent).containsExactly(List.of("inner"));
        }
        assertThat(sent).containsExactly(List.of("inner"), List.of("outer"));
    }

    @Test
    void everySenderIsCalledWhenOneThrows() {
        List<List<String>> second = new ArrayList<>();
        SameCallAcquires call = SameCallAcquires.open();
        SameCallAcquires.hold(this, "a", held -> {
            throw new IllegalStateException("broken sender");
        });
        SameCallAcquires.hold(second, "b", second::add);

        assertThatThrownBy(call::close).hasMessage("broken sender");
        assertThat(second).containsExactly(List.of("b"));
        assertThat(SameCallAcquires.hold(this, "c", sent::add)).isFalse();
    }

    @Test
    void aScopeIsClosedOnTheThreadThatOpenedIt() {
        try (SameCallAcquires call = SameCallAcquires.open()) {
            assertThat(CompletableFuture.supplyAsync(() -> SameCallAcquires.hold(this, "elsewhere", sent::add)).join())
                    .as("another thread has no scope").isFalse();
            assertThatThrownBy(() -> CompletableFuture.runAsync(call::close).join())
                    .hasCauseInstanceOf(IllegalStateException.class);
        }
    }
}
