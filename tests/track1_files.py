"""Track-1 trajectory files for tests, written in the shape AssetOpsBench's track-1 runner saves.

`benchmark/cods_track1/.../Q_<n>_trajectory.json`: the question, then one entry per sub-task
with the agent's log, including the runner's misspelt `trajectroy_log`. Small made-up values.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson


def log_entry(step: int, action: str, action_input: str, observation: str) -> dict[str, Any]:
    return {
        "step": step,
        "raw_llm_thought_output": " thinking\n\nAction",
        "raw_llm_action_output": f" {action}\nAction Input {step}: {action_input}\nObservation",
        "raw_observation_output": observation,
        "thought": f"thought {step}",
        "action": action,
        "action_input": action_input,
        "observation": observation,
        "state": "Valid Action" if action != "Finish" else "",
        "is_loop_detected": None,
        "step_trajectory_json": None,
    }


def subtask(
    number: int, agent: str, entries: list[dict[str, Any]], final: str, tokens: tuple[int, int]
) -> dict[str, Any]:
    return {
        "task_number": number,
        "task_description": f"sub-task {number}",
        "agent_name": agent,
        "response": f"{final} (response)",
        "logs": {
            "type": "mpe-agent",
            "task": f"sub-task {number}\n",
            "environment": "mpe_main",
            "system_prompt": "Answer the following questions as best you can.",
            "scratchpad": "\nThought 1: ...",
            "endstate": "",
            "trajectroy_log": entries,
            "history": [{"role": "system", "content": "...", "agent": "primary"}],
            "trajectory": [
                {"thought": "t", "action": "Tool Name: x , Tool Parameter: {}", "observation": ""}
            ],
            "info": {
                "model_stats": {
                    "tokens_sent": tokens[0],
                    "tokens_received": tokens[1],
                    "api_calls": 4,
                    "total_cost": 0,
                    "instance_cost": 0,
                }
            },
            "final_answer": final,
            "reviews": ["Task Status: Accomplished"],
            "reflections": [],
        },
    }


def track1_file(tmp_path: Path, number: int = 106) -> Path:
    data = {
        "id": number,
        "text": "List all failure modes of Chiller 6 that its supply temperature detects.",
        "trajectory": [
            subtask(
                1,
                "Failure Mode and Sensor Relevancy Expert",
                [
                    log_entry(1, "Get Failure Modes", "Chiller 6", "['Compressor Overheating']"),
                    log_entry(2, "Finish", "Compressor Overheating", ""),
                ],
                "Compressor Overheating",
                (8645, 120),
            ),
            subtask(
                2,
                "IoT Data Download",
                [
                    log_entry(1, "sites", "{}", '{"sites": ["MAIN"]}'),
                    log_entry(2, "sensors", "site_name=MAIN, assetnum=Chiller 6", "two sensors"),
                    log_entry(3, "Finish", "done", ""),
                ],
                "Compressor Overheating can be detected.",
                (1000, 30),
            ),
        ],
    }
    path = tmp_path / f"Q_{number}_trajectory.json"
    path.write_bytes(orjson.dumps(data, option=orjson.OPT_INDENT_2))
    return path
