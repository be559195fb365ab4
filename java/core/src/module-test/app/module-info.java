// SPDX-License-Identifier: Apache-2.0
/** An application on the module path that uses numaspread's core API (scripts/module-check). */
module io.numaspread.moduletest {
    requires io.numaspread.core;
}
