"""Small helpers for declaring typed ROS parameters the same way on Humble..Kilted."""

from __future__ import annotations

from typing import Any

from rcl_interfaces.msg import FloatingPointRange, ParameterDescriptor
from rclpy.node import Node
from rclpy.parameter import Parameter

__all__ = ['declare', 'parameter_type_of', 'float_range']

_TYPES = {
    bool: Parameter.Type.BOOL,
    int: Parameter.Type.INTEGER,
    float: Parameter.Type.DOUBLE,
    str: Parameter.Type.STRING,
    list: Parameter.Type.STRING_ARRAY,  # parser options: lists are list[str]
}

def parameter_type_of(default: Any) -> Parameter.Type:
    """The ROS parameter type standing for a Python default's type."""
    return _TYPES[type(default)]




def float_range(lower: float, upper: float, step: float = 0.0) -> FloatingPointRange:
    """An inclusive range for a double parameter's descriptor (step 0: continuous)."""
    return FloatingPointRange(from_value=float(lower), to_value=float(upper), step=float(step))


def declare(node: Node, name: str, default: Any, description: str = '', *,
            read_only: bool = False, floating_point_range: FloatingPointRange | None = None) -> Any:
    """Declare ``name`` statically typed after ``default`` and return its value.

    An empty list default cannot carry its type in rclpy (``[]`` infers as a
    byte array), so list parameters are declared by type and then set to the
    default when no override gave them a value.
    """
    ptype = parameter_type_of(default)
    descriptor = ParameterDescriptor(name=name, type=ptype.value, description=description,
                                     read_only=read_only)
    if floating_point_range is not None:
        descriptor.floating_point_range = [floating_point_range]
    if isinstance(default, list):
        param = node.declare_parameter(name, ptype, descriptor)
        if param.type_ == Parameter.Type.NOT_SET:
            # Not read-only at this point unless asked: set the default before any callback.
            if read_only:
                raise ValueError(f'read-only list parameter {name} needs a value')
            node.set_parameters([Parameter(name, ptype, list(default))])
        value = node.get_parameter(name).value
        return list(value) if value is not None else list(default)
    return node.declare_parameter(name, default, descriptor).value
