"""Runs one agent framework against a scripted OpenAI-compatible endpoint and exports its
OpenTelemetry GenAI spans to Heddle's Agents API (test/clients/agent-frameworks.test.ts).

Usage: agent_frameworks.py <pydantic-ai|openai-agents>

Environment: MODEL_BASE_URL (the scripted endpoint, ".../v1"), HEDDLE_URL, HEDDLE_API_KEY,
HEDDLE_PROJECT ("entity/project"), CONVERSATION_ID, and SETUP_SNIPPET: the set-up block of docs/agents.md
for the framework, run as printed (it makes the OTel tracer provider, exports to Heddle and
instruments the framework).

Both runs: an orchestrator agent `travel_planner` with a function tool `get_weather` and a subagent
`translator` used as a tool, over three turns of one conversation. The last stdout line is a JSON
summary of what the framework did (turns, final outputs, tool calls), compared by the test with
what Heddle reads back.
"""

import asyncio
import json
import os
import sys


TURNS = [
    "What is the weather in Lisbon?",
    "Translate good morning into Portuguese.",
    "Thanks! And the weather in Porto?",
]
WEATHER = {"Lisbon": {"temp_c": 24, "sky": "sunny"}, "Porto": {"temp_c": 17, "sky": "cloudy"}}
TRANSLATOR_INSTRUCTIONS = "You are a translator. Translate the text into Portuguese."
PLANNER_INSTRUCTIONS = "You are a travel planner. Use get_weather for weather and translator for translations."



def weather(city: str) -> str:
    return json.dumps(WEATHER.get(city, {"temp_c": 0, "sky": "unknown"}))


async def run_pydantic_ai() -> list[dict]:
    from pydantic_ai import Agent, RunContext
    from pydantic_ai.messages import ToolCallPart, ToolReturnPart
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    model = OpenAIChatModel("scripted-model", provider=OpenAIProvider(base_url=os.environ["MODEL_BASE_URL"], api_key="test"))
    translator = Agent(model, name="translator", instructions=TRANSLATOR_INSTRUCTIONS)
    planner = Agent(model, name="travel_planner", instructions=PLANNER_INSTRUCTIONS)

    @planner.tool_plain
    def get_weather(city: str) -> str:
        """The current weather of a city."""
        return weather(city)

    @planner.tool
    async def translator_tool(ctx: RunContext[None], text: str) -> str:
        """Translates text into Portuguese (delegates to the translator agent)."""
        result = await translator.run(text, usage=ctx.usage, conversation_id=ctx.conversation_id)
        return result.output

    conversation_id = os.environ["CONVERSATION_ID"]
    history = None
    turns = []
    for turn in TURNS:
        result = await planner.run(turn, message_history=history, conversation_id=conversation_id)
        history = result.all_messages()
        calls, returns = {}, {}
        for message in result.new_messages():
            for part in message.parts:
                if isinstance(part, ToolCallPart):
                    calls[part.tool_call_id] = {"tool": part.tool_name, "arguments": part.args_as_dict()}
                elif isinstance(part, ToolReturnPart):
                    returns[part.tool_call_id] = str(part.content)
        tools = [{**call, "result": returns.get(call_id)} for call_id, call in calls.items()]
        turns.append({"user": turn, "output": result.output, "tool_calls": tools})
    return turns


async def run_openai_agents() -> list[dict]:
    from agents import Agent, Runner, ToolCallItem, ToolCallOutputItem, function_tool, set_default_openai_api, set_default_openai_client
    from openai import AsyncOpenAI
    from opentelemetry import baggage, context

    set_default_openai_client(AsyncOpenAI(base_url=os.environ["MODEL_BASE_URL"], api_key="test"), use_for_tracing=False)
    set_default_openai_api("chat_completions")

    @function_tool
    def get_weather(city: str) -> str:
        """The current weather of a city."""
        return weather(city)

    translator = Agent(name="translator", instructions=TRANSLATOR_INSTRUCTIONS, model="scripted-model")
    planner = Agent(
        name="travel_planner",
        instructions=PLANNER_INSTRUCTIONS,
        model="scripted-model",
        tools=[
            get_weather,
            translator.as_tool(tool_name="translator_tool", tool_description="Translates text into Portuguese."),
        ],
    )

    token = context.attach(baggage.set_baggage("gen_ai.conversation.id", os.environ["CONVERSATION_ID"]))
    try:
        items: list = []
        turns = []
        for turn in TURNS:
            result = await Runner.run(planner, items + [{"role": "user", "content": turn}])
            items = result.to_input_list()
            calls, returns = {}, {}
            for item in result.new_items:
                if isinstance(item, ToolCallItem):
                    raw = item.raw_item
                    calls[raw.call_id] = {"tool": raw.name, "arguments": json.loads(raw.arguments)}
                elif isinstance(item, ToolCallOutputItem):
                    returns[item.raw_item["call_id"]] = str(item.output)
            tools = [{**call, "result": returns.get(call_id)} for call_id, call in calls.items()]
            turns.append({"user": turn, "output": str(result.final_output), "tool_calls": tools})
    finally:
        context.detach(token)
    return turns


def main() -> None:
    framework = sys.argv[1]
    setup: dict = {}
    exec(os.environ["SETUP_SNIPPET"], setup)
    provider = setup["provider"]
    runner = {"pydantic-ai": run_pydantic_ai, "openai-agents": run_openai_agents}[framework]
    turns = asyncio.run(runner())
    provider.force_flush()
    provider.shutdown()
    print(json.dumps({"framework": framework, "turns": turns}))


if __name__ == "__main__":
    main()
