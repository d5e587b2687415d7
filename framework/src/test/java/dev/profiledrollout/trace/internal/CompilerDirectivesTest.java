package dev.profiledrollout.trace.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.Method;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The reader's compiler directive names methods that exist, and HotSpot takes it. */
class CompilerDirectivesTest {

    @Test
    void every_callee_kept_out_of_line_exists_so_the_directive_cannot_go_stale_silently() throws Exception {
        for (String callee : CompilerDirectives.NOT_INLINED) {
            String className = callee.substring(0, callee.lastIndexOf('.')).replace('/', '.');
            String methodName = callee.substring(callee.lastIndexOf('.') + 1);
            Method[] methods = Class.forName(className).getDeclaredMethods();
            assertThat(Arrays.stream(methods).map(Method::getName)).as(callee).contains(methodName);
        }
        assertThat(CompilerDirectives.directive())
                .startsWith("[{ match: [\"dev/profiledrollout/trace/*.*\"")
                .contains("\"-dev/profiledrollout/trace/internal/ByteCursor.stringEnd\"");
    }

    @Test
    void hotspot_adds_the_directive_once() throws Exception {
        assumeTrue(java.lang.management.ManagementFactory.getPlatformMBeanServer()
                .isRegistered(new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand")),
                "a JVM with HotSpot's diagnostic commands");
        CompilerDirectives.installOnce();
        String first = CompilerDirectives.outcome();
        CompilerDirectives.installOnce(); // a second call changes nothing
        assertThat(CompilerDirectives.outcome()).isEqualTo(first);
        assertThat(first).satisfiesAnyOf(
                outcome -> assertThat(outcome).contains("compiler directives added"),
                outcome -> assertThat(outcome).startsWith("off ("));
    }
}
